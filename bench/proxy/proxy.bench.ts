/**
 * `npm run bench:proxy`: what the proxy costs, side by side in one run. One
 * upstream (a bare `node:http` server answering the documented
 * `GET /api/v5/orgs/<org>/rooms/<room>/chats` with a ~1 KB JSON page:
 * bench/proxy/http-upstream.ts), loaded by the same load generator (autocannon in
 * its own process: bench/proxy/get-load.ts) in turn
 *   - directly,
 *   - through the two floors, proxies that check nothing: a bare `node:http`
 *     server on an undici Pool (bench/proxy/bare-proxy.ts), and the same behind
 *     Fastify as the gateway builds it (bench/proxy/fastify-floor-proxy.ts),
 *   - through the anchor: a minimal Fastify + @fastify/reply-from proxy with
 *     the same key check (bench/proxy/reply-from-anchor.ts),
 *   - through threadgate's proxy (bench/proxy/proxy-gateway.ts: one client,
 *     allow-list `/api/v5/orgs/<organization_id>/*`, `log.level: warn`),
 * each server in its own process, the cases alternating round after round.
 * Then a 100 MiB download and upload through each proxy, its RSS sampled
 * (bench/proxy/proxy-streams.ts).
 *   node bench/proxy/proxy.bench.ts [--rounds=3] [--seconds=8] [--connections=50] [--warmup=2]
 *                                   [--profile=<dir>] (threadgate run with --cpu-prof, the profile written there)
 *                                   [--no-streams] [--only-streams]
 */
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { GetLoadSummary } from './get-load.ts';
import { CHATS_PATH, KEY } from './proxy-bench-constants.ts';
import { measureStreams, reportStreams } from './proxy-streams.ts';
import { median } from '../support/measure.ts';
import { spawnJson } from '../support/spawn-json.ts';
import { spawnServer, type SpawnedServer } from '../support/spawn-server.ts';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    profile: { type: 'string' },
    'no-streams': { type: 'boolean', default: false },
    'only-streams': { type: 'boolean', default: false },
  },
});

const here = import.meta.dirname;
const AUTH = { authorization: `Bearer ${KEY}` };
type Case = 'direct' | 'bare' | 'fastify' | 'anchor' | 'threadgate';
const CASES: readonly Case[] = ['direct', 'bare', 'fastify', 'anchor', 'threadgate'];
const LABEL: Record<Case, string> = {
  direct: 'straight to the upstream',
  bare: 'floor: node:http + undici, no checks',
  fastify: 'floor: Fastify + undici, no checks',
  anchor: 'Fastify + reply-from anchor',
  threadgate: 'threadgate proxy',
};

const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function expectOk(name: string, url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${text}`);
}

async function loadRounds(servers: Record<Case, SpawnedServer>): Promise<boolean> {
  const targets = {} as Record<Case, [string, Record<string, string>]>;
  for (const c of CASES) targets[c] = [`${servers[c].url}${CHATS_PATH}`, c === 'direct' ? {} : AUTH];
  for (const c of CASES) await expectOk(c, ...targets[c]);
  const rows: { round: number; c: Case; r: GetLoadSummary }[] = [];
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const c of CASES) {
      const [url, headers] = targets[c];
      // CPU per request of the server loaded and of the upstream (for `direct`, the same process).
      const pids = c === 'direct' ? `${servers.direct.child.pid}` : `${servers[c].child.pid},${servers.direct.child.pid}`;
      const r = await spawnJson<GetLoadSummary>(join(here, 'get-load.ts'), [url, JSON.stringify(headers), opts.connections, opts.seconds, opts.warmup, pids]);
      rows.push({ round, c, r });
      console.error(`round ${round} ${c}: ${int(r.requestsPerSecond)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms`);
    }
  }
  console.log(`${opts.connections} connections, ${opts.seconds} s per case after ${opts.warmup} s warm-up, ${opts.rounds} rounds, cases alternating`);
  console.log('CPU µs per request (user + system, all threads): of the proxy, the upstream, the load generator');
  console.log('| round | case | req/s | p50 ms | p99 ms | non-2xx | errors | proxy CPU µs | upstream CPU µs | load CPU µs |');
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { round, c, r } of rows) {
    const [own = 0, up = own] = r.cpuUsPerRequest;
    const cpu = `${c === 'direct' ? '—' : own.toFixed(1)} | ${up.toFixed(1)} | ${r.loadCpuUsPerRequest.toFixed(1)}`;
    console.log(`| ${round} | ${LABEL[c]} | ${int(r.requestsPerSecond)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} | ${r.errors} | ${cpu} |`);
  }
  const med = (c: Case, k: 'requestsPerSecond' | 'p50Ms' | 'p99Ms') => median(rows.filter((x) => x.c === c).map((x) => x.r[k]));
  console.log('\nmedians of the rounds');
  console.log('| case | req/s | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|');
  for (const c of CASES) console.log(`| ${LABEL[c]} | ${int(med(c, 'requestsPerSecond'))} | ${med(c, 'p50Ms').toFixed(2)} | ${med(c, 'p99Ms').toFixed(2)} |`);
  const perRound = (a: Case, b: Case) => rows.filter((x) => x.c === a).map((x) => x.r.requestsPerSecond / rows.find((y) => y.round === x.round && y.c === b)!.r.requestsPerSecond);
  const tgAnchor = perRound('threadgate', 'anchor');
  const tgDirect = perRound('threadgate', 'direct');
  const ratio = (name: string, xs: number[], target = '') => console.log(`${name}: ${median(xs).toFixed(2)}× (rounds: ${xs.map((x) => x.toFixed(2)).join(', ')}${target})`);
  console.log('\nreq/s ratios, median of the rounds');
  ratio('threadgate / anchor', tgAnchor, '; target ≥ 1.20×');
  ratio('threadgate / direct', tgDirect, '; target ≥ 0.30×');
  ratio('threadgate / node:http floor', perRound('threadgate', 'bare'));
  ratio('threadgate / Fastify floor', perRound('threadgate', 'fastify'));
  ratio('Fastify floor / direct', perRound('fastify', 'direct'));
  ratio('node:http floor / direct', perRound('bare', 'direct'));
  console.log(`threadgate p99 ${med('threadgate', 'p99Ms').toFixed(2)} ms vs anchor p99 ${med('anchor', 'p99Ms').toFixed(2)} ms (target ≤)`);
  return rows.every(({ r }) => r.non2xx === 0 && r.errors === 0);
}

console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB`);
const upstream = await spawnServer(join(here, 'http-upstream.ts'));
const profileArgs = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`] : [];
const threadgate = await spawnServer(join(here, 'proxy-gateway.ts'), [upstream.url], { execArgv: profileArgs });
const proxies = opts['only-streams']
  ? []
  : [
      await spawnServer(join(here, 'bare-proxy.ts'), [upstream.url]),
      await spawnServer(join(here, 'fastify-floor-proxy.ts'), [upstream.url]),
      await spawnServer(join(here, 'reply-from-anchor.ts'), [upstream.url]),
    ];
try {
  let ok = true;
  const [bare, fastify, anchor] = proxies as [SpawnedServer, SpawnedServer, SpawnedServer];
  if (!opts['only-streams']) ok = await loadRounds({ direct: upstream, bare, fastify, anchor, threadgate });
  if (!opts['no-streams']) reportStreams('threadgate proxy', await measureStreams(threadgate));
  if (!ok) process.exitCode = 1;
} finally {
  await Promise.all([threadgate, ...proxies].map((p) => p.stop()));
  await upstream.stop();
}
