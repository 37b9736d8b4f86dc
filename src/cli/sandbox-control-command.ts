/**
 * `threadgate sandbox chats [--config PATH] [--json]` and
 * `threadgate sandbox reply <chat-id|thread-id> <text> [--file PATH]… [--config PATH]`:
 * the running gateway's embedded sandbox, played from the command line. The
 * sandbox's address is read from the file it keeps beside the store
 * (`<store.path>.sandbox`), so the commands reach the sandbox of the `serve`
 * those settings run. `reply` answers as an agent: the reply reaches the
 * connector as from the platform.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { parse } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp } from './help.ts';
import { sandboxBaseUrl, sandboxCall } from './sandbox-client.ts';
import { formatTable, printJson } from './table.ts';

export const CHATS_OPTIONS = { config: { type: 'string', short: 'c' }, json: { type: 'boolean' } } as const;
export const REPLY_OPTIONS = { config: { type: 'string', short: 'c' }, file: { type: 'string', multiple: true } } as const;

export const HELP = [
  commandHelp({
    name: 'sandbox chats',
    summary: "the chats of the running gateway's embedded sandbox, with their thread ids",
    usage: ['sandbox chats [--config PATH] [--json]'],
    options: CHATS_OPTIONS,
    describe: { ...configHelp, json: { text: 'as JSON' } },
    examples: ['sandbox chats', 'sandbox chats --config threadgate.yaml --json'],
  }),
  commandHelp({
    name: 'sandbox reply',
    summary: 'answer as an agent in a chat of the embedded sandbox; the reply reaches the connector as from the platform',
    usage: ['sandbox reply <chat-id|thread-id> <text> [--file PATH]… [--config PATH]'],
    options: REPLY_OPTIONS,
    describe: { ...configHelp, file: { value: 'PATH', text: 'a file to attach (again for more)' } },
    examples: ['sandbox reply chatline:c-1 "It ships today."', 'sandbox reply 4f0c… "Here is the invoice" --file invoice.pdf'],
  }),
];

interface ControlChat {
  chat: { id: string; is_ended?: boolean; created_at?: string };
  thread_id: string | null;
  visitor: { external_sender_id: string | null };
}

export async function sandboxChatsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, CHATS_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`sandbox chats takes no arguments, got "${positionals.join(' ')}"`);
  const { results } = (await sandboxCall(sandboxBaseUrl(values.config), 'GET', '/chats')) as { results: ControlChat[] };
  const rows = results.map((r) => ({ chat_id: r.chat.id, thread_id: r.thread_id, visitor: r.visitor.external_sender_id, ended: r.chat.is_ended === true }));
  if (values.json) printJson(rows);
  else process.stdout.write(formatTable(['chat', 'thread', 'visitor', 'ended'], rows.map((r) => [r.chat_id, r.thread_id, r.visitor, r.ended ? 'yes' : 'no'])));
  return 0;
}

export async function sandboxReplyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, REPLY_OPTIONS);
  const [target, text, ...rest] = positionals;
  if (target === undefined || text === undefined) throw new UsageError('sandbox reply takes a chat id (or a thread id) and the text');
  if (rest.length > 0) throw new UsageError(`sandbox reply takes one text: quote it ("${[text, ...rest].join(' ')}")`);
  const url = sandboxBaseUrl(values.config);
  const chatId = await chatOf(url, target);
  const attachments = (values.file ?? []).map((path) => ({
    type: /^\.(png|jpe?g|gif|webp)$/i.test(extname(path)) ? 'image' : 'file',
    name: basename(path),
    content_base64: readFileSync(resolve(path)).toString('base64'),
  }));
  const message = (await sandboxCall(url, 'POST', `/chats/${chatId}/agent_messages`, { text, ...(attachments.length > 0 ? { attachments } : {}) })) as { id?: string };
  process.stdout.write(`replied in chat ${chatId}${message?.id ? ` (message ${message.id})` : ''}\n`);
  return 0;
}

/** A chat id as given, or the newest chat of a thread id. */
async function chatOf(url: string, target: string): Promise<string> {
  const { results } = (await sandboxCall(url, 'GET', `/chats?thread_id=${encodeURIComponent(target)}`)) as { results: ControlChat[] };
  if (results.length > 0) return results[0]!.chat.id;
  const all = (await sandboxCall(url, 'GET', '/chats')) as { results: ControlChat[] };
  if (all.results.some((r) => r.chat.id === target)) return target;
  throw new UsageError(`no chat of the sandbox has the id or thread id "${target}" (threadgate sandbox chats lists them)`);
}
