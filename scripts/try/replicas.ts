/**
 * scripts/try-replicas [--dir DIR] [--keep]: two `threadgate serve` replicas
 * on one local PostgreSQL, without Docker (docs/try-it-locally.md). Starts a
 * throwaway PostgreSQL 15 cluster (./postgres.ts), ONE standalone
 * `threadgate sandbox` as the platform both replicas share (each embedded
 * sandbox would be a platform of its own), writes one settings file, starts
 * the replicas on two ports and prints what to try. Runs until
 * SIGINT/SIGTERM, then stops the replicas, the sandbox and PostgreSQL
 * (`pg_ctl stop -m fast`) and removes its folder (unless --keep).
 *
 * No load balancer: each replica's server.public_url is its own address
 * (the default, allowed with a platform on loopback), so the platform posts
 * agent replies to the replica that registered the channel last; the
 * delivery itself is a job in the shared database that either may run.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { freePort, freshFolder, HOST, nodeCommand, removeFolderAtEnd, runScript } from './common.ts';
import { startPostgres } from './postgres.ts';
import { MAIN, startThreadgate, type ThreadgateProcess } from './threadgate-process.ts';

const NAME = 'try-replicas';
export const CONNECTOR = 'desk';
export const THREAD = 'order-42';
/** The headings of the printed sections; each is followed by a blank line, its lines, and a blank line. */
export const SECTIONS = {
  settings: '## Settings of both replicas',
  readyz: '## 1. Both replicas are ready',
  customer: '## 2. A customer writes, through replica 1',
  agent: '## 3. An agent answers in the chat the message became',
  delivered: '## 4. The reply was delivered',
  stop: '## Stop',
} as const;

const HELP = `Usage: scripts/try-replicas [--dir DIR] [--keep]

Starts a throwaway PostgreSQL 15 cluster on a free loopback port, one
standalone threadgate sandbox as the platform, and two threadgate serve
replicas on that database and that platform, each on its own port; prints
their settings and what to try. Runs until Ctrl-C (SIGINT) or SIGTERM, then
stops them all (PostgreSQL with pg_ctl stop -m fast).

  --dir DIR   the folder: database cluster, settings, logs (new or empty;
              default: a new folder in the temp folder)
  --keep      keep the folder when stopping (default: removed)

Needs Debian's postgresql-15 (scripts/install-postgres installs it).
Guide: docs/try-it-locally.md`;

export function replicaSettings(sandbox: Record<string, unknown>, storeUrl: string): string {
  return [
    '# One file for both replicas; each is started with its own --port.',
    'platform:                       # the standalone sandbox both share',
    `  url: ${String(sandbox.url)}`,
    `  organization_id: ${String(sandbox.organization_id)}`,
    `  token: ${String(sandbox.token)}`,
    'store:',
    `  url: ${storeUrl}`,
    '# server.public_url left out: each replica\'s own http://127.0.0.1:<port>, allowed with a platform on loopback',
    'connectors:',
    `  - name: ${CONNECTOR}`,
    '    type: webhook',
    `    room_id: ${String(sandbox.room_id)}`,
    '    allow_unsigned: true           # local trials only: messages without a signature',
  ].join('\n');
}

export function main(argv: string[]): Promise<number> {
  return runScript(NAME, HELP, argv, async (undo, options) => {
    const dir = freshFolder(options.dir, 'threadgate-try-replicas-');
    removeFolderAtEnd(undo, NAME, dir, options.keep);
    chmodSync(dir, 0o755); // the user `postgres` reaches its cluster's folder below it
    const postgres = await startPostgres(join(dir, 'postgres'), 'threadgate');
    undo('PostgreSQL', () => postgres.stop());
    const sandbox = await startThreadgate(['sandbox', '--host', HOST, '--port', '0'], join(dir, 'sandbox.log'), 'sandbox_ready');
    undo('the sandbox', () => sandbox.stop());
    const settingsFile = join(dir, 'threadgate.yaml');
    const settings = replicaSettings(sandbox.ready, postgres.url);
    writeFileSync(settingsFile, `${settings}\n`);
    const replicas: { port: number; url: string; process: ThreadgateProcess }[] = [];
    // One after the other: the second finds the first's channel registration in the database and points it at itself.
    for (const n of [1, 2]) {
      const port = await freePort();
      const proc = await startThreadgate(['serve', '--config', settingsFile, '--port', String(port)], join(dir, `replica-${n}.log`), 'gateway_ready');
      undo(`replica ${n}`, () => proc.stop());
      replicas.push({ port, url: `http://${HOST}:${port}`, process: proc });
    }
    const [one, two] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const sandboxUrl = String(sandbox.ready.url);
    const message = { thread_id: THREAD, messages: [{ message_id: 'm1', sender_id: 'ann@example.com', sender_name: 'Ann', body: 'Where is my order?' }] };
    const entry = relative(process.cwd(), MAIN);
    const threadgate = `${nodeCommand()} ${entry.startsWith('..') ? MAIN : entry}`;
    const lines = [
      `PostgreSQL 15  ${HOST}:${postgres.port}, database threadgate (pid ${postgres.pid}; log ${join(dir, 'postgres', 'postgres.log')})`,
      `Sandbox        ${sandboxUrl}, the platform of both replicas (pid ${sandbox.pid}; log ${sandbox.log})`,
      ...replicas.map((r, i) => `Replica ${i + 1}      ${r.url} (pid ${r.process.pid}; log ${r.process.log})`),
      '',
      `${SECTIONS.settings}: ${settingsFile}`,
      '',
      settings,
      '',
      SECTIONS.readyz,
      '',
      ...replicas.map((r) => `curl -s -o /dev/null -w '%{http_code}\\n' ${r.url}/readyz`),
      '',
      `${SECTIONS.customer}: the message is stored in PostgreSQL and posted to the sandbox as a chat`,
      '',
      `curl -s -XPOST ${one.url}/connectors/${CONNECTOR}/messages -H 'content-type: application/json' -d '${JSON.stringify(message)}'`,
      '',
      `${SECTIONS.agent}: the sandbox posts it to the address registered last, replica 2's (${two.url})`,
      '',
      `CHAT=$(curl -s '${sandboxUrl}/_sandbox/chats?thread_id=${CONNECTOR}:${THREAD}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).results[0].chat.id')`,
      `curl -s -XPOST ${sandboxUrl}/_sandbox/chats/$CHAT/agent_messages -H 'content-type: application/json' -d '{"text":"It ships today."}'`,
      '',
      `${SECTIONS.delivered} by whichever replica ran its job (the webhook connector without outbound_url logs it): the delivery log in the shared database, and the replicas' logs`,
      '',
      `${threadgate} deliveries list --config ${settingsFile}`,
      `grep -h 'agent reply' ${join(dir, 'replica-*.log')}`,
      '',
      SECTIONS.stop,
      '',
      `Ctrl-C here, or kill -TERM ${process.pid}: stops both replicas, the sandbox and PostgreSQL (pg_ctl stop -m fast), and ${options.keep ? 'keeps' : 'removes'} ${dir}`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}
