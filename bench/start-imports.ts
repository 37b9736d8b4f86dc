/**
 * `node bench/start-imports.ts`: how long importing the gateway with the
 * e-mail connector takes, and the RSS after it, in fresh processes: twice
 * without the compile cache, then three times with an empty cache folder (the
 * first run fills it), as `threadgate serve` starts (src/cli/main.ts enables
 * the cache before its commands load).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CHILD = `
import { enableCompileCache } from 'node:module';
enableCompileCache();
const started = performance.now();
await import(${JSON.stringify(join(ROOT, 'src/cli/gateway.ts'))});
await import(${JSON.stringify(join(ROOT, 'connectors/email/index.ts'))});
console.log(JSON.stringify({ ms: performance.now() - started, rssMiB: process.memoryUsage().rss / 2 ** 20 }));
`;

function once(env: NodeJS.ProcessEnv): { ms: number; rssMiB: number } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the import failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { ms: number; rssMiB: number };
}

const cache = mkdtempSync(join(tmpdir(), 'threadgate-compile-cache-'));
const runs = [
  ['no cache', { NODE_DISABLE_COMPILE_CACHE: '1' }],
  ['no cache', { NODE_DISABLE_COMPILE_CACHE: '1' }],
  ['cache, empty (filled by this run)', { NODE_COMPILE_CACHE: cache }],
  ['cache, warm', { NODE_COMPILE_CACHE: cache }],
  ['cache, warm', { NODE_COMPILE_CACHE: cache }],
] as const;
console.log(`node ${process.version}: importing src/cli/gateway.ts and connectors/email/index.ts in a fresh process\n`);
console.log('| run | import ms | RSS after, MiB |\n|---|---:|---:|');
try {
  for (const [name, env] of runs) {
    const { ms, rssMiB } = once(env);
    console.log(`| ${name} | ${ms.toFixed(0)} | ${rssMiB.toFixed(0)} |`);
  }
} finally {
  rmSync(cache, { recursive: true, force: true });
}
