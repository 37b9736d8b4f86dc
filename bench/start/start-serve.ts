/**
 * `npm run bench:start`: how long `threadgate serve` takes from its spawn until
 * `/readyz` answers 200, and its RSS then, with an e-mail connector (its IMAP
 * and SMTP servers on a closed port: the start does not wait for them) and a
 * sandbox platform in a process of its own. Beside it, in the same rounds and
 * fresh processes: Node alone (`node -e ''`, spawn to exit) and the libraries
 * the gateway runs on imported alone (spawn to exit; RSS after the imports).
 * Every run has the compile cache of `serve` (warm after the first round,
 * which is left out) unless its case turns it off; the medians of the rounds
 * are printed.
 *   BENCH_ROUNDS=9 node bench/start/start-serve.ts [entry …]
 * Entries: files to run as the command, from the checkout (default: the
 * launcher, src/cli/threadgate.js, with and without the compile cache, and
 * src/cli/main.ts run directly).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { closedPort, freePort } from '../../test/support/ports.ts';
import { startChildSandbox } from '../support/child-sandbox.ts';
import { rssOf } from '../support/spawn-server.ts';

const ROOT = join(import.meta.dirname, '../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const NO_CACHE = { NODE_DISABLE_COMPILE_CACHE: '1' };
const entries: [string, NodeJS.ProcessEnv][] =
  process.argv.length > 2
    ? process.argv.slice(2).map((e) => [e, {}])
    : [
        ['src/cli/threadgate.js', {}],
        ['src/cli/threadgate.js', NO_CACHE],
        ['src/cli/main.ts', {}],
      ];
/**
 * What `serve` with an e-mail connector imports of them at its start (a module trace): drizzle-orm's migrator
 * alone (its root entry, which the gateway never loads, takes more than all the others), undici and prom-client by
 * the sub-paths the gateway uses (src/platform/undici.ts, src/http/prom-client.ts), and not mailparser nor
 * nodemailer, which the connector loads at its first mail and its first reply (docs/decisions/footprint.md).
 */
const LIBRARIES = [
  'fastify', 'pino', 'zod', 'yaml', 'better-sqlite3', 'drizzle-orm/migrator', 'imapflow',
  ...['dispatcher/pool', 'dispatcher/agent', 'api/index', 'core/errors'].map((p) => `undici/lib/${p}.js`),
  ...['registry', 'counter', 'gauge', 'histogram'].map((p) => `prom-client/lib/${p}.js`),
];
const IMPORT_LIBRARIES = `
import { enableCompileCache } from 'node:module';
enableCompileCache();
for (const l of ${JSON.stringify(LIBRARIES)}) await import(l);
console.log(JSON.stringify({ rssMiB: process.memoryUsage().rss / 2 ** 20 }));
`;

interface Sample {
  ms: number;
  rssMiB?: number;
}

function nodeAlone(): Sample {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['-e', ''], { cwd: ROOT });
  if (r.status !== 0) throw new Error('node -e "" failed');
  return { ms: performance.now() - started };
}

function libraries(): Sample {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_LIBRARIES], { cwd: ROOT, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`importing the libraries failed: ${r.stderr}`);
  return { ms, rssMiB: (JSON.parse(r.stdout) as { rssMiB: number }).rssMiB };
}

async function serve(entry: string, env: NodeJS.ProcessEnv, config: string): Promise<Sample> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, entry), 'serve', '--config', config, '--port', String(port)], {
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  try {
    for (;;) {
      if (early !== undefined) throw new Error(`${entry} serve exited with ${early} before it was ready`);
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    return { ms: performance.now() - started, rssMiB: rssOf(child.pid as number) / 2 ** 20 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const dir = mkdtempSync(join(tmpdir(), 'tg-bench-start-'));
const sandbox = await startChildSandbox();
try {
  const closed = await closedPort();
  const config = join(dir, 'threadgate.yaml');
  writeFileSync(
    config,
    stringify({
      platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
      store: { path: join(dir, 'gateway.db') },
      log: { level: 'silent' },
      connectors: [
        {
          name: 'support',
          type: 'email',
          room_id: sandbox.roomId,
          address: 'support@example.test',
          imap: { host: '127.0.0.1', port: closed, secure: false, user: 'support', password: 'secret' },
          smtp: { host: '127.0.0.1', port: closed, secure: false },
        },
      ],
    }),
  );
  const cases: [string, () => Sample | Promise<Sample>][] = [
    ["Node alone (`node -e ''`, spawn to exit)", nodeAlone],
    [`the libraries imported alone (${LIBRARIES.join(', ')}; spawn to exit)`, libraries],
    ...entries.map(([e, env]): [string, () => Promise<Sample>] => [
      `\`node ${e} serve\`${env === NO_CACHE ? ', compile cache off' : ''}, spawn to /readyz 200`,
      () => serve(e, env, config),
    ]),
  ];
  const samples = new Map<string, Sample[]>(cases.map(([name]) => [name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, run] of cases) {
      const s = await run();
      if (round > 0) samples.get(name)?.push(s); // the first round fills the compile cache
    }
  }
  console.log(`node ${process.version}, ${ROUNDS} rounds (after one that warms the compile cache), medians\n`);
  console.log('| process | ms | RSS, MiB |\n|---|---:|---:|');
  for (const [name, runs] of samples) {
    const rss = runs.flatMap((r) => (r.rssMiB === undefined ? [] : [r.rssMiB]));
    console.log(`| ${name} | ${median(runs.map((r) => r.ms)).toFixed(0)} | ${rss.length > 0 ? median(rss).toFixed(0) : '—'} |`);
  }
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
