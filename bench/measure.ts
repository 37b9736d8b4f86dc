/** A tiny timing helper for the benchmarks: warm up, then time N runs. */
export interface Measured {
  name: string;
  ops: number;
  seconds: number;
  opsPerSecond: number;
  microsPerOp: number;
}

export function measure(name: string, ops: number, fn: (i: number) => void): Measured {
  for (let i = 0; i < Math.min(1_000, ops); i++) fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, ops, seconds, opsPerSecond: ops / seconds, microsPerOp: (seconds * 1e6) / ops };
}

/** `measure` for work that returns a promise: each run awaited before the next. */
export async function measureAsync(name: string, ops: number, fn: (i: number) => Promise<unknown>): Promise<Measured> {
  for (let i = 0; i < Math.min(1_000, ops); i++) await fn(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < ops; i++) await fn(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, ops, seconds, opsPerSecond: ops / seconds, microsPerOp: (seconds * 1e6) / ops };
}

export function report(rows: Measured[]): void {
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(48)} ${Math.round(r.opsPerSecond).toLocaleString('en-US').padStart(12)} ops/s ` +
        `${r.microsPerOp.toFixed(2).padStart(10)} µs/op  (${r.ops} ops)`,
    );
  }
}
