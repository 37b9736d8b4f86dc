/**
 * The compile cache: `threadgate serve` keeps its modules' compiled code in
 * NODE_COMPILE_CACHE's folder as soon as it is ready (not only at exit, which
 * a killed container never reaches), and NODE_DISABLE_COMPILE_CACHE=1 keeps
 * it from writing anything. The command's entry (src/cli/threadgate.js)
 * turns it on before the first TypeScript file, so that a start whose
 * cache is warm never loads Node's type stripper.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAIN, startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** Loaded first (`--import`, plain JavaScript): prints at exit whether Node loaded its type stripper (amaro) in this process. */
const REPORT_STRIPPER = `data:text/javascript,process.on('exit', () => process.stderr.write('type stripper loaded: ' + process.moduleLoadList.some((m) => m.includes('amaro')) + '\\n'))`;

/**
 * Runs `entry jobs --help` twice with the cache in its default folder under a fresh TMPDIR (NODE_COMPILE_CACHE would
 * turn the cache on before any entry, as in the image); whether the second run loaded the type stripper.
 */
function strippedOnSecondRun(entry: string): boolean {
  const { NODE_COMPILE_CACHE: _set, ...env } = process.env;
  const tmp = tempDir();
  const run = () =>
    spawnSync(process.execPath, ['--import', REPORT_STRIPPER, entry, 'jobs', '--help'], { env: { ...env, TMPDIR: tmp }, encoding: 'utf8', timeout: 20_000 });
  const first = run();
  expect(first.status).toBe(0);
  expect(first.stderr).toContain('type stripper loaded: true'); // an empty cache: every file is stripped
  const second = run();
  expect(second.status).toBe(0);
  expect(second.stdout).toContain('threadgate jobs list');
  expect(filesUnder(join(tmp, 'node-compile-cache')).length).toBeGreaterThan(5);
  const said = /type stripper loaded: (true|false)/.exec(second.stderr);
  expect(said).not.toBeNull();
  return said![1] === 'true';
}

describe('the compile cache', () => {
  it('spares a warm start of the command the type stripper: its entry is JavaScript', { timeout: 30_000 }, () => {
    expect(MAIN.endsWith('threadgate.js')).toBe(true);
    expect(strippedOnSecondRun(MAIN)).toBe(false);
    // The TypeScript entry run directly is stripped before it can turn the cache on: what the launcher is for.
    expect(strippedOnSecondRun(fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url)))).toBe(true);
  });

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
