/**
 * The compile cache: `threadgate serve` keeps its modules' compiled code in
 * NODE_COMPILE_CACHE's folder as soon as it is ready (not only at exit, which
 * a killed container never reaches), and NODE_DISABLE_COMPILE_CACHE=1 keeps
 * it from writing anything.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('the compile cache', () => {
  it('is written once serve is ready, while it runs', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const cache = join(tempDir(), 'compile-cache');
    const gw = startCli(['serve', '--port', '0'], { cwd: dir, env: { NODE_COMPILE_CACHE: cache } });
    await gw.waitForLine((l) => l.event === 'gateway_ready');
    // Still running: what is on disk was flushed at start, not at exit.
    await until(async () => filesUnder(cache).length > 50, 10_000, 'the compiled modules written');
    expect(gw.child.exitCode).toBe(null);
  });

  it('writes nothing with NODE_DISABLE_COMPILE_CACHE=1', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const cache = join(tempDir(), 'compile-cache');
    const gw = startCli(['serve', '--port', '0'], { cwd: dir, env: { NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' } });
    await gw.waitForLine((l) => l.event === 'gateway_ready');
    gw.child.kill('SIGTERM');
    await gw.exited;
    expect(() => filesUnder(cache)).toThrow(/ENOENT/);
  });
});
