/** Running the contract's checks (contract.ts) without a test runner, as `threadgate connector test` does. */
import type { ContractCheck } from './contract.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  /** Why it failed. */
  reason?: string;
  /** Why it did not apply (it passed). */
  skipped?: string;
  ms: number;
}

/** Runs the checks in order, each to its end; a failure does not stop the next. */
export async function runContract(checks: readonly ContractCheck[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const started = Date.now();
    try {
      const outcome = await check.run();
      results.push({ name: check.name, ok: true, ...(outcome ? { skipped: outcome.skipped } : {}), ms: Date.now() - started });
    } catch (err) {
      results.push({ name: check.name, ok: false, reason: err instanceof Error ? err.message : String(err), ms: Date.now() - started });
    }
  }
  return results;
}
