/**
 * Shared by the hard-mail suites: raw mail builders (long ids, long prose),
 * a gateway or a bare MailboxWatcher over a Dovecot user, and readers of
 * what the gateway stored.
 */
import { createHash } from 'node:crypto';
import pino from 'pino';
import { onTestFinished } from 'vitest';
import { EmailConnectorConfig } from '../../../connectors/email/config.ts';
import { MailboxWatcher, type Cursor } from '../../../connectors/email/mailbox-watcher.ts';
import { memoryState } from '../../support/memory-state.ts';
import { startTestGateway, type TestGateway } from '../../support/gateway.ts';
import type { MailUser } from '../../support/mail-servers.ts';
import { emailConnector, emailSettings } from './settings.ts';

export const ARRIVES_MS = 20_000;

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export interface RawAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** A plain-text mail, or multipart/mixed with the text first when it has an attachment. */
export function rawMail(opts: { id: string; from?: string; subject: string; text: string; extra?: string[]; attachment?: RawAttachment }): string {
  const head = [
    `From: ${opts.from ?? 'Customer <c@customer.test>'}`, 'To: support@example.test', `Subject: ${opts.subject}`, `Message-ID: ${opts.id}`,
    'Date: Sun, 22 Nov 2026 10:00:00 +0000', ...(opts.extra ?? []), 'MIME-Version: 1.0',
  ];
  const text = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', opts.text.replace(/\n/g, '\r\n')];
  const file = opts.attachment;
  if (!file) return [...head, ...text, ''].join('\r\n');
  return [
    ...head, 'Content-Type: multipart/mixed; boundary="part"', '', '--part', ...text, '--part',
    `Content-Type: ${file.contentType}; name="${file.filename}"`, `Content-Disposition: attachment; filename="${file.filename}"`,
    'Content-Transfer-Encoding: base64', '', ...(file.content.toString('base64').match(/.{1,76}/g) ?? []), '--part--', '',
  ].join('\r\n');
}

/** A Message-ID of exactly `length` characters, brackets included. */
export function longId(length: number, tag: string): string {
  const domain = '@customer.test>';
  return `<${tag}${'x'.repeat(length - 1 - tag.length - domain.length)}${domain}`;
}

/** About `chars` characters of plain prose, 70-character lines, no quotes or signature. */
export function prose(chars: number): string {
  const lines: string[] = [];
  let total = 0;
  for (let i = 0; total < chars; i++) {
    const line = `Line ${String(i).padStart(6, '0')} of a very long report about the kettle that will not boil.`;
    lines.push(line);
    total += line.length + 1;
  }
  return lines.join('\n');
}

export async function gatewayFor(support: MailUser, extra: Record<string, unknown> = {}): Promise<TestGateway> {
  return startTestGateway({ connectors: [emailConnector(support, { reconnect_max_seconds: 1, ...extra })] });
}

export interface InboundRow { id: string; status: string; body: string; fullText: string | null; thread: string; senderId: string }
export const inbound = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select m.external_id as id, m.status, m.body, m.full_text as "fullText", t.thread_key as thread, m.sender_id as "senderId"
              from inbound_messages m join threads t on t.id = m.thread where m.connector = 'mail' order by m.id`)) as InboundRow[];
export const cursorOf = async (tg: TestGateway) => (await tg.gateway.store.read.state.get('mail', 'cursor')) as Cursor | undefined;

/** A watcher of its own (no gateway) over `support`'s INBOX, with its state in memory. */
export function watcherFor(support: MailUser, handle: (raw: Buffer, uid: number) => Promise<void>, options: ConstructorParameters<typeof MailboxWatcher>[4] = {}) {
  const config = EmailConnectorConfig.parse(emailSettings(support, { reconnect_max_seconds: 1 }));
  const state = memoryState();
  const watcher = new MailboxWatcher(config, state, pino({ level: 'silent' }), handle, options);
  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  onTestFinished(async () => {
    stop.abort();
    await watcher.close();
    await running;
  });
  return { watcher, cursor: () => state.values.get('cursor') as Cursor | undefined };
}
