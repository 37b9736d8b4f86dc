/**
 * A gateway that starts while the platform is slow to answer: the mailbox is
 * read and its mail stored while the channel's registration waits for the
 * platform; the post waits for the registration, and goes out once it is done.
 */
import { expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { appendRaw, mailServers } from '../../support/mail-servers.ts';
import { startOutageProxy } from '../../support/outage-proxy.ts';
import { until } from '../../support/wait.ts';
import { startTestSandbox } from '../../sandbox/support.ts';
import { emailConnector } from './settings.ts';

interface LogLine {
  msg: string;
  submitted?: number;
  outcome?: { kind: string };
}

/** Whether a log line says a mail of the mailbox was stored (submitted to the bridge, after its commit). */
const stored = (l: LogLine) => (l.msg === 'mail group handled' && (l.submitted ?? 0) > 0) || (l.msg === 'mail handled' && l.outcome?.kind === 'submitted');

it('stores the waiting mail while the channel registers, and posts it once the registration is done', { timeout: 30_000 }, async () => {
  const support = await mailServers().addUser('slow-start');
  const raw = [
    'From: Customer <early@customer.test>', `To: ${support.address}`, 'Subject: before the platform answered',
    `Message-ID: <early.${support.address}>`, 'Date: Sat, 28 Nov 2026 09:00:00 +0000', 'Content-Type: text/plain; charset=utf-8', '',
    'stored before the registration', '',
  ].join('\r\n');
  await appendRaw(support, raw);
  const sandbox = await startTestSandbox();
  const proxy = await startOutageProxy(sandbox.url);
  // Every call to the platform waits: the channel's registration is the first the gateway makes.
  proxy.hold = () => true;
  const lines: string[] = [];
  const starting = startTestGateway({ connectors: [emailConnector(support)], sandbox, platformUrl: proxy.url, logLines: lines });
  const storedLine = () => lines.map((l) => JSON.parse(l) as LogLine).find(stored);

  await until(() => storedLine() !== undefined, 10_000, 'the waiting mail stored');
  // Stored while the registration still waited for the platform, and nothing posted.
  expect(proxy.held).toBeGreaterThan(0);
  expect(lines.map((l) => JSON.parse(l) as LogLine).some((l) => /channel configuration (created|adopted)/.test(l.msg))).toBe(false);
  const chats = await sandbox.call('GET', '/_sandbox/chats');
  expect(chats.status).toBe(200);
  expect(chats.body.results).toEqual([]);

  proxy.hold = undefined;
  proxy.release();
  const tg = await starting;
  const inbound = async () =>
    (await tg.gateway.store.read.sql.all(`select external_id, status from inbound_messages where connector = 'mail'`)) as { external_id: string; status: string }[];
  await until(async () => (await inbound()).some((m) => m.status === 'posted'), 10_000, 'the mail posted');
  expect(await inbound()).toEqual([{ external_id: `<early.${support.address}>`, status: 'posted' }]);
  expect((await sandbox.call('GET', '/_sandbox/chats')).body.results).toHaveLength(1);
  expect((await tg.gateway.store.read.registrations.get('mail'))?.configId).toMatch(/^[0-9a-f-]{36}$/);
});
