/**
 * SIGKILL while a gateway catches up on a full mailbox. 240 mails wait in a
 * real Dovecot INBOX; a gateway child process starts reading them and is
 * killed once some are stored, twice; a third one finishes. The cursor is
 * stored only after the mails before it were stored, so nothing is skipped;
 * mails read again after a kill are absorbed by the dedup key: every mail is
 * stored exactly once and posted to the platform.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTestSandbox } from '../sandbox/support.ts';
import { startCli, type LongRunning } from '../support/cli.ts';
import { appendRaw, mailServers } from '../support/mail-servers.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';
import { emailConnector } from '../connectors/email/settings.ts';
import { rawMail } from '../connectors/email/hard-mail-support.ts';

const MAILS = 240;

function counts(file: string): { rows: number; uniq: number; posted: number } {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return db
        .prepare(`select count(*) as rows, count(distinct external_id) as uniq, coalesce(sum(status = 'posted'), 0) as posted from inbound_messages where kind = 'message'`)
        .get() as { rows: number; uniq: number; posted: number };
    } finally {
      db.close();
    }
  } catch {
    return { rows: 0, uniq: 0, posted: 0 }; // not created yet
  }
}

describe('SIGKILL during an e-mail catch-up', () => {
  it('stores every waiting mail exactly once across kills and posts them all', { timeout: 180_000 }, async () => {
    const support = await mailServers().addUser('backlog');
    for (let i = 0; i < MAILS; i++) {
      await appendRaw(support, rawMail({ id: `<waiting-${i}@customer.test>`, from: `Customer ${i} <c${i}@customer.test>`, subject: `Question ${i}`, text: `Question number ${i}.` }));
    }
    const sandbox = await startTestSandbox();
    const dir = tempDir();
    const storeFile = join(dir, 'mail.db');
    const config = join(dir, 'threadgate.yaml');
    writeFileSync(
      config,
      stringify({
        platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
        server: { port: 0 },
        store: { path: storeFile },
        log: { level: 'warn' },
        connectors: [{ ...emailConnector(support), room_id: sandbox.roomId }],
      }),
    );
    let gateway: LongRunning | undefined;
    onTestFinished(async () => {
      if (gateway && gateway.child.exitCode === null) {
        gateway.child.kill('SIGKILL');
        await gateway.exited;
      }
    });

    const seenAtKill: number[] = [];
    for (const killAt of [40, 120]) {
      gateway = startCli(['serve', '--config', config]);
      await until(() => counts(storeFile).rows >= killAt, 60_000, `${killAt} mails stored`);
      gateway.child.kill('SIGKILL');
      await gateway.exited;
      seenAtKill.push(counts(storeFile).rows);
    }
    expect(seenAtKill[0]).toBeLessThan(MAILS); // killed in the middle of the catch-up
    expect(seenAtKill[1]).toBeLessThan(MAILS);

    gateway = startCli(['serve', '--config', config]);
    await until(() => counts(storeFile).posted === MAILS, 120_000, 'every mail posted');
    expect(counts(storeFile)).toEqual({ rows: MAILS, uniq: MAILS, posted: MAILS });
  });
});
