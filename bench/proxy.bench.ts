/**
 * `npm run bench:proxy`: what the proxy adds. A small upstream (a bare
 * Fastify app answering a documented unified-messaging list with a 1 KB JSON
 * page, in its own process: bench/json-upstream.ts) is loaded directly, then
 * through a real gateway's proxy in this process (gateway key checked,
 * allow-list, rate limit, route table, platform token injected, streamed
 * answer). autocannon runs in a third process (bench/get-load.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startGateway } from '../src/cli/gateway.ts';
import { loadSettings } from '../src/config/load.ts';
import { createLogger } from '../src/logger.ts';
import type { GetLoadSummary } from './get-load.ts';
import { spawnJson } from './spawn-json.ts';

const ORG = '6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10';
const KEY = 'bench-proxy-key-0123456789abcdef';
const PATH = `/api/v5/orgs/${ORG}/unified_messaging`;
const LOAD = join(import.meta.dirname, 'get-load.ts');

function load(url: string, headers: Record<string, string>): Promise<GetLoadSummary> {
  return spawnJson<GetLoadSummary>(LOAD, [url, JSON.stringify(headers), '10', '10', '2']);
}

const upstream = spawn(process.execPath, [join(import.meta.dirname, 'json-upstream.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstreamUrl = await new Promise<string>((resolve, reject) => {
  let out = '';
  upstream.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    if (out.includes('\n')) resolve(out.trim());
  });
  upstream.on('exit', (code) => reject(new Error(`the upstream exited ${code}`)));
});

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-proxy-'));
const file = join(dir, 'threadgate.yaml');
writeFileSync(
  file,
  stringify({
    platform: { url: upstreamUrl, organization_id: ORG, token: 'platform-token' },
    store: { path: 'bench.db' },
    log: { level: 'warn' },
    proxy: { clients: [{ name: 'bench', key_sha256: createHash('sha256').update(KEY).digest('hex'), rate_per_minute: 1_000_000, allow: [{ paths: ['/api/*'] }] }] },
  }),
);
const loaded = loadSettings({ path: file });
const gateway = await startGateway(loaded, createLogger('warn'), { port: 0 });
try {
  const direct = await load(`${upstreamUrl}${PATH}`, {});
  const proxied = await load(`${gateway.url}${PATH}`, { authorization: `Bearer ${KEY}` });
  console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB; 10 connections, 10 s after 2 s warm-up`);
  console.log('| path | req/s | p50 ms | p99 ms | non-2xx | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, r] of [['upstream directly', direct], ['through the proxy', proxied]] as const) {
    console.log(`| ${name} | ${Math.round(r.requestsPerSecond).toLocaleString('en-US')} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} | ${r.errors} |`);
  }
  console.log(`added latency: p50 +${(proxied.p50Ms - direct.p50Ms).toFixed(2)} ms, p99 +${(proxied.p99Ms - direct.p99Ms).toFixed(2)} ms; throughput ${(proxied.requestsPerSecond / direct.requestsPerSecond).toFixed(2)}× of direct`);
  if (proxied.non2xx > 0 || proxied.errors > 0) process.exitCode = 1;
} finally {
  await gateway.close();
  upstream.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
