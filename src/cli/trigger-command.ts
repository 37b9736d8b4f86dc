/**
 * `threadgate trigger <message_created|reply_suggestion_created> --connector
 * NAME --thread ID [--text T] [--file PATH]… [--file-url URL]…`: a platform
 * webhook of that type, valid by the unified messaging document, sent signed
 * to the gateway's own receiver for that connector, so the connector's
 * `deliver` runs without the platform. The thread (by thread id or thread
 * key), its chat and the connector's configuration come from the store where
 * they are known. `--to URL --secret S` sends it elsewhere instead (never
 * with the live secret). Prints the answer.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadSettings } from '../config/load.ts';
import type { MessageAttachment } from '../platform/schemas/unified-messaging.ts';
import { messageCreated, replySuggestionCreated } from '../connector/testing/events.ts';
import { parse } from './args.ts';
import { TriggerFailedError, UsageError } from './errors.ts';
import { forwardSigned } from './forward.ts';
import { commandHelp, configHelp } from './help.ts';
import { gatewayBaseUrl } from './gateway-address.ts';
import { openSettingsStore } from './store-access.ts';
import { sandboxBaseUrl, sandboxCall } from './sandbox-client.ts';

export const EVENT_TYPES = ['message_created', 'reply_suggestion_created'] as const;

export const OPTIONS = {
  config: { type: 'string', short: 'c' },
  connector: { type: 'string' },
  thread: { type: 'string' },
  text: { type: 'string' },
  file: { type: 'string', multiple: true },
  'file-url': { type: 'string', multiple: true },
  to: { type: 'string' },
  secret: { type: 'string' },
  url: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const HELP = [
  commandHelp({
    name: 'trigger',
    summary: "send a platform webhook of your making to a connector (its deliver runs without the platform), or to any URL",
    usage: ['trigger <message_created|reply_suggestion_created> --connector NAME --thread ID [--text T] [--file PATH]… [--file-url URL]… [--to URL --secret S]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      connector: { value: 'NAME', text: 'the connector whose receiver gets it (/webhooks/NAME)' },
      thread: { value: 'ID', text: "the thread: the platform's thread id, or the connector's thread key; its chat and ids come from the store" },
      text: { value: 'T', text: "the agent's message, or the suggestion", default: '"Hello from threadgate trigger"' },
      file: { value: 'PATH', text: 'attach this file (message_created; kept by the embedded sandbox, so its URL is on the platform host)' },
      'file-url': { value: 'URL', text: 'attach the file at this URL (a host the gateway may fetch from: the platform, files.fetch_hosts)' },
      to: { value: 'URL', text: 'send it to this URL instead of the gateway, signed with --secret' },
      secret: { value: 'S', text: "with --to: the receiving side's webhook secret" },
      url: { value: 'URL', text: 'the gateway', default: 'server.host and server.port of the settings' },
      json: { text: 'print the event sent and the answer as one JSON object' },
    },
    examples: [
      'trigger message_created --connector desk --thread desk:T-1 --text "We are on it"',
      'trigger reply_suggestion_created --connector desk --thread desk:T-1 --to http://127.0.0.1:3000/hook --secret s3cret',
    ],
    notes: ['Signed with the connector\'s own secret from the store when sent to the gateway itself; --to needs --secret.'],
  }),
];

export async function triggerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const [type, ...rest] = positionals;
  if (!EVENT_TYPES.includes(type as (typeof EVENT_TYPES)[number])) throw new UsageError(`trigger takes an event type, ${EVENT_TYPES.join(' or ')}${type ? `, got "${type}"` : ''}`);
  if (rest.length > 0) throw new UsageError(`trigger takes one event type, got "${positionals.join(' ')}"`);
  const connector = values.connector;
  if (!connector) throw new UsageError('trigger needs --connector NAME');
  if (!values.thread) throw new UsageError('trigger needs --thread ID (a thread id or the connector\'s thread key)');
  if ((values.to === undefined) !== (values.secret === undefined)) throw new UsageError('--to and --secret go together: whoever receives it checks the signature with its own secret');
  if (values.to !== undefined && !/^https?:\/\/\S+$/.test(values.to)) throw new UsageError(`--to must be an http(s) URL, got "${values.to}"`);
  const files = values.file ?? [];
  if (type === 'reply_suggestion_created' && (files.length > 0 || (values['file-url'] ?? []).length > 0)) throw new UsageError('a reply suggestion carries no files');

  const loaded = loadSettings({ path: values.config, needs: ['store', 'server', 'platform', 'sandbox', 'connectors'] });
  const entry = loaded.settings.connectors.find((c) => c.name === connector);
  if (!entry && values.to === undefined) throw new UsageError(`the settings have no connector named "${connector}" (they have: ${loaded.settings.connectors.map((c) => c.name).join(', ') || 'none'})`);
  const store = await openSettingsStore(loaded, { mustExist: true });
  let sent: { event: unknown; to: string; status: number; body: string };
  try {
    const thread = (await store.read.threads.byThreadId(connector, values.thread)) ?? (await store.read.threads.byKey(connector, values.thread));
    const registration = await store.read.registrations.get(connector);
    if (values.to === undefined && !registration) throw new UsageError(`connector ${connector} has no channel configuration in the store yet (has serve run and registered it?)`);
    if (!thread) process.stderr.write(`note: no thread "${values.thread}" of ${connector} is in the store; the event names it as given\n`);
    const envelope = {
      threadId: thread?.threadId ?? values.thread,
      chatId: thread?.chatId ?? randomUUID(),
      messagingChannel: (entry?.messaging_channel as string | undefined) ?? entry?.type ?? 'webhook',
      ...(registration ? { channelConfigId: registration.configId, roomId: registration.roomId } : {}),
    };
    const text = values.text ?? 'Hello from threadgate trigger';
    const attachments: MessageAttachment[] = [...(await uploaded(files, values.config)), ...(values['file-url'] ?? []).map(linked)];
    const event =
      type === 'message_created'
        ? messageCreated({ ...envelope, text, files: attachments, senderName: 'threadgate trigger' })
        : replySuggestionCreated({ ...envelope, suggestion: text });
    const to = values.to ?? `${values.url ?? gatewayBaseUrl(loaded.settings)}/webhooks/${encodeURIComponent(connector)}`;
    const secret = values.secret ?? (registration!.secret as string);
    const answer = await forwardSigned(to, JSON.stringify(event), secret, loaded.settings.platform.signature.payload).catch((err: unknown) => {
      const cause = (err as { code?: string; cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new TriggerFailedError(`cannot reach ${to} (${cause}): is the gateway running there? (--url names it)`, { cause: err });
    });
    sent = { event, to, ...answer };
  } finally {
    await store.close();
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ to: sent.to, status: sent.status, answer: sent.body, event: sent.event })}\n`);
  else process.stdout.write(`POST ${sent.to} → ${sent.status} ${sent.body}\n`);
  return sent.status >= 200 && sent.status < 300 ? 0 : 1;
}

/** Each file kept by the embedded sandbox: its URL is on the platform's host, where the gateway fetches from. */
async function uploaded(paths: readonly string[], config: string | undefined): Promise<MessageAttachment[]> {
  if (paths.length === 0) return [];
  const base = sandboxBaseUrl(config, '--file needs the embedded sandbox (no platform.url); with a platform give --file-url URL');
  return Promise.all(
    paths.map(async (path) => {
      const image = /^\.(png|jpe?g|gif|webp)$/i.test(extname(path));
      const body = { type: image ? 'image' : 'file', name: basename(path), content_base64: readFileSync(resolve(path)).toString('base64') };
      return (await sandboxCall(base, 'POST', '/files', body)) as MessageAttachment;
    }),
  );
}

function linked(url: string): MessageAttachment {
  let name: string;
  try {
    name = decodeURIComponent(basename(new URL(url).pathname)) || 'file';
  } catch {
    throw new UsageError(`--file-url must be an http(s) URL, got "${url}"`);
  }
  if (!/^https?:/.test(url)) throw new UsageError(`--file-url must be an http(s) URL, got "${url}"`);
  return { type: 'file', name, url };
}
