/**
 * The e-mail backlog's second floor: imapflow + mailparser as in
 * email-floor.ts, plus the least the gateway must do with each mail, none of
 * the gateway's code:
 * - the mail stored (one row, a unique Message-ID) in a grouped write of a
 *   page of 64 mails, synced before anything else happens to it;
 * - its text posted to the platform: one `POST …/unified_messaging/<config>/
 *   messages` a mail, each mail its own thread, at most 16 in flight on one
 *   keep-alive pool (the gateway's pool to the platform has 16 connections);
 * - the row marked posted in a grouped, synced write;
 * every write through bench/support/floor-committer.ts (one group at a time, as the
 * gateway's store), at most 256 mails between the fetch and their post. No
 * threading, no quotes stripped, no jobs, no retries, no logs.
 *
 *   node bench/email/email-floor-posting.ts <host> <port> <user> <password> <expected> <platform url> <organization> <token> <config id> <dir>
 *
 * prints `{ seconds, parsed, peakRssMiB, cpuSeconds, … }`: the seconds (and
 * this process's CPU seconds) from the connect until every mail is marked
 * posted, and the wall clock then (the benchmark counts from the spawn too).
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { Pool } from 'undici';
import { cpuSecondsSince, peakRssMiB, sourcesInPages, wallClockMs, type FloorResult } from './email-floor.ts';
import { groupCommitter } from '../support/floor-committer.ts';
import { cpuNow } from '../support/measure.ts';

/** Platform posts at once: the connections of the gateway's pool to the platform (src/platform/http-client.ts). */
const IN_FLIGHT = 16;
/** Mails parsed and not yet posted, at most: the fetch waits beyond it (bounded memory, as the gateway's pages). */
const OUTSTANDING = 256;
/** Mails stored in one group. */
const PAGE = 64;

interface Args {
  host: string;
  port: number;
  user: string;
  pass: string;
  platformUrl: string;
  organization: string;
  token: string;
  configId: string;
  dir: string;
}

async function floorPosting(a: Args): Promise<FloorResult> {
  const db = new Database(join(a.dir, 'floor-posting.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // the log synced after each group, below
  db.exec('create table mails (id integer primary key, message_id text not null unique, sender text not null, body text not null, posted integer not null default 0)');
  const walFd = openSync(join(a.dir, 'floor-posting.db-wal'), 'r');
  const insert = db.prepare('insert into mails (message_id, sender, body) values (?, ?, ?) on conflict (message_id) do nothing');
  const mark = db.prepare('update mails set posted = 1 where message_id = ?');
  const committer = groupCommitter(db, walFd);
  const store = (m: { messageId: string; sender: string; body: string }) => committer.write(() => insert.run(m.messageId, m.sender, m.body));
  const posted = (messageId: string) => committer.write(() => mark.run(messageId));

  const platform = new Pool(a.platformUrl, { connections: IN_FLIGHT });
  const path = `/api/v5/orgs/${a.organization}/unified_messaging/${a.configId}/messages`;
  const headers = { authorization: `Token ${a.token}`, 'content-type': 'application/json' };
  let posting = 0;
  const waiting: (() => void)[] = [];
  const post = async (m: { messageId: string; sender: string; body: string }) => {
    if (posting >= IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    posting++;
    try {
      await postOne(m);
    } finally {
      posting--;
      waiting.shift()?.();
    }
  };
  const postOne = async (m: { messageId: string; sender: string; body: string }) => {
    const res = await platform.request({
      method: 'POST',
      path,
      headers,
      body: JSON.stringify({ messages: [{ body: m.body, thread_id: m.messageId, sender_id: m.sender, message_id: m.messageId, sender_type: 'visitor' }] }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`the platform answered ${res.statusCode}: ${text}`);
    await posted(m.messageId);
  };

  const started = performance.now();
  const cpu = cpuNow();
  const client = new ImapFlow({ host: a.host, port: a.port, secure: false, auth: { user: a.user, pass: a.pass }, logger: false });
  await client.connect();
  let parsed = 0;
  const inFlight = new Set<Promise<void>>();
  let page: { messageId: string; sender: string; body: string }[] = [];
  // A page of parsed mails stored in one group, then each posted.
  const storePage = () => {
    for (const mail of page) {
      const work = store(mail).then(() => post(mail));
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    }
    page = [];
  };
  try {
    await client.mailboxOpen('INBOX', { readOnly: true });
    for await (const source of sourcesInPages(client)) {
      const m = await simpleParser(source);
      if (!m.messageId) continue;
      parsed += 1;
      page.push({ messageId: m.messageId, sender: m.from?.value[0]?.address ?? 'unknown', body: m.text ?? '' });
      if (page.length === PAGE) storePage();
      if (inFlight.size >= OUTSTANDING) await Promise.race(inFlight);
    }
    storePage();
    await Promise.all(inFlight);
  } finally {
    await client.logout();
    await platform.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const endedAtMs = wallClockMs();
  const cpuSeconds = cpuSecondsSince(cpu);
  const marked = (db.prepare('select count(*) as n from mails where posted = 1').get() as { n: number }).n;
  db.close();
  closeSync(walFd);
  if (marked !== parsed) throw new Error(`the posting floor marked ${marked} of ${parsed} mails posted`);
  return { seconds, parsed, peakRssMiB: peakRssMiB('self'), ...cpuSeconds, endedAtMs };
}

if (import.meta.main) {
  const [host, port, user, pass, expected, platformUrl, organization, token, configId, dir] = process.argv.slice(2) as string[];
  const r = await floorPosting({ host: host!, port: Number(port), user: user!, pass: pass!, platformUrl: platformUrl!, organization: organization!, token: token!, configId: configId!, dir: dir! });
  if (r.parsed !== Number(expected)) throw new Error(`the posting floor parsed ${r.parsed} of ${expected} mails`);
  process.stdout.write(JSON.stringify(r));
}
