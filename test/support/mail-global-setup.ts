/**
 * vitest globalSetup: ONE Dovecot (IMAP with IDLE, LMTP, SMTP submission) and
 * ONE OpenSMTPD (SMTP, delivering mail for example.test and customer.test to
 * Dovecot over LMTP) for the whole run, on free loopback ports, with
 * configuration, mail and logs in a temp folder. Test files use them through ./mail-servers.ts,
 * which also types the provided facts (inject('mailServers')).
 *
 * - Starting and stopping them, users (one passwd-file per address), and
 *   OpenSMTPD's private queue where mount namespaces work, so concurrent
 *   runs, scripts/try-mail-servers and a system smtpd don't collide:
 *   scripts/mail-servers/servers.ts, shared with scripts/try-mail-servers.
 * - OAuth2: Dovecot also takes access tokens (SASL XOAUTH2, OAUTHBEARER), which
 *   its oauth2 passdb checks with a token-info endpoint served here
 *   (./mail-oauth2.ts); tests register tokens through the control server.
 * - Submission: Dovecot's submission service takes mail only after AUTH (a
 *   password or a token, as IMAP does) and relays it to OpenSMTPD, which
 *   delivers it like any other.
 * - Dovecot restarts through an HTTP endpoint served here, so this process
 *   always owns what it stops at teardown (or exit). A state file in
 *   os.tmpdir() lists the servers; the next run kills those of a dead run.
 * - THREADGATE_MAIL_DEBUG=1 prints the start-up time and keeps the folder.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestProject } from 'vitest/node';
import type { MailServersInfo } from './mail-servers.ts';
import { startTokenInfo } from './mail-oauth2.ts';
import { HOST } from '../../scripts/mail-servers/configs.ts';
import { POLL_MS, procStart, signal, STOP_GRACE_MS } from '../../scripts/mail-servers/processes.ts';
import { addMailUser, checkMailServers, prepareMailDir, startMailServers, type MailServers, type ServerPid } from '../../scripts/mail-servers/servers.ts';

const STATE_PREFIX = 'threadgate-mail-servers.';
const DEBUG = Boolean(process.env.THREADGATE_MAIL_DEBUG);
interface State { owner: number; ownerStart: string | undefined; dir: string; pids: ServerPid[] }

/** Kills the servers of earlier runs whose vitest process is gone, and removes their folders. */
async function cleanStale(): Promise<void> {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(STATE_PREFIX))) {
    const file = join(tmpdir(), name);
    let state: State;
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as State;
    } catch {
      continue; // being written by a run starting right now
    }
    if (state.ownerStart !== undefined && procStart(state.owner) === state.ownerStart) continue; // a run still going
    const alive = () => state.pids.filter((p) => p.start !== undefined && procStart(p.pid) === p.start);
    const first = alive();
    for (const p of first) signal(p.group ? -p.pid : p.pid, p.group ? 'SIGKILL' : 'SIGTERM');
    for (let waited = 0; waited < STOP_GRACE_MS && alive().length > 0; waited += POLL_MS) await sleep(POLL_MS);
    for (const p of first) signal(p.group ? -p.pid : p.pid, 'SIGKILL');
    rmSync(state.dir, { recursive: true, force: true });
    rmSync(file, { force: true });
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const found = checkMailServers('the e-mail tests');
  await cleanStale();
  const tokenInfo = await startTokenInfo(HOST); // in this process: it outlives Dovecot's restarts
  const dir = mkdtempSync(join(tmpdir(), 'threadgate-mail-'));
  prepareMailDir(dir);
  const probeUser = `probe-${process.pid}@example.test`;
  addMailUser(dir, probeUser, 'probe');
  const stateFile = join(tmpdir(), `${STATE_PREFIX}${process.pid}.json`);

  const record = (pids: ServerPid[]) =>
    writeFileSync(stateFile, JSON.stringify({ owner: process.pid, ownerStart: procStart(process.pid), dir, pids } satisfies State));
  let servers: MailServers | undefined;
  const stopAll = async () => {
    await servers?.stop();
    await tokenInfo.close();
    if (!DEBUG) rmSync(dir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
  };
  const control = createHttpServer();
  let restarts: Promise<unknown> = Promise.resolve();
  try {
    const auth = tokenInfo.dovecotAuthConf(dir, `scheme=PLAIN ${dir}/users/%u`);
    servers = await startMailServers({ dir, auth, login: { user: probeUser, password: 'probe' }, onProcesses: record });
    const restartDovecot = servers.restartDovecot;

    control.on('request', (req, res) => {
      if (tokenInfo.handleControl(req, res)) return;
      if (req.method !== 'POST' || req.url !== '/restart-dovecot') return void res.writeHead(404).end();
      const restart = restarts.then(restartDovecot);
      restarts = restart.catch(() => undefined);
      restart.then(() => res.writeHead(204).end(), (err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => control.listen(0, HOST, resolve));
  } catch (err) {
    await stopAll();
    throw err;
  }

  const controlUrl = `http://${HOST}:${(control.address() as AddressInfo).port}`;
  const { imap: imapPort, smtp: smtpPort, lmtp: lmtpPort, submission: submissionPort } = servers.ports;
  project.provide('mailServers', { host: HOST, imapPort, smtpPort, lmtpPort, submissionPort, usersDir: join(dir, 'users'), controlUrl, versions: found });
  if (DEBUG) console.log(`mail servers up in ${Date.now() - started} ms (${servers.isolated ? 'private' : 'global'} smtpd queue) in ${dir}`);

  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await restarts;
    await stopAll();
  };
}
