/**
 * A gateway for a benchmark, in this process: settings written to a YAML file
 * in `dir` (log at warn, the store a file in `dir`), started on a free port.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startGateway, type RunningGateway } from '../../src/cli/gateway.ts';
import { loadSettings } from '../../src/config/load.ts';
import { createLogger } from '../../src/log/logger.ts';

export interface BenchPlatform {
  url: string;
  organizationId: string;
  token: string;
  /** How long the gateway waits for the platform's answer (settings' `platform.timeout_ms`; its default otherwise). */
  timeoutMs?: number;
}

export async function startBenchGateway(
  dir: string,
  platform: BenchPlatform,
  connectors: Record<string, unknown>[],
  store: Record<string, unknown> = {},
): Promise<RunningGateway> {
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(
    file,
    stringify({
      platform: {
        url: platform.url,
        organization_id: platform.organizationId,
        token: platform.token,
        ...(platform.timeoutMs === undefined ? {} : { timeout_ms: platform.timeoutMs }),
      },
      store: { path: 'gateway.db', ...store },
      log: { level: 'warn' },
      connectors,
    }),
  );
  const loaded = loadSettings({ path: file });
  return startGateway(loaded, createLogger(loaded.settings.log.level), { port: 0 });
}
