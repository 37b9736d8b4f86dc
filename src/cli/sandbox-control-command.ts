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
import { loadSettings } from '../config/load.ts';
import { readSandboxFile } from '../sandbox/persistence.ts';
import { parse } from './args.ts';
import { SandboxUnreachableError, UsageError } from './errors.ts';
import { commandHelp, configHelp } from './help.ts';
import { sandboxFileOf } from './platform-target.ts';
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

/** The base URL of the sandbox that the settings' `serve` runs. */
function sandboxUrl(config: string | undefined): string {
  const loaded = loadSettings({ path: config, needs: ['store', 'sandbox', 'platform.url'] });
  if (loaded.settings.platform.url !== undefined) throw new UsageError('these settings name a platform (platform.url): there is no embedded sandbox to talk to');
  const file = sandboxFileOf(loaded);
  if (file === undefined) throw new UsageError('the embedded sandbox keeps no file with these settings (a PostgreSQL store, or sandbox.keep_state: false): call its /_sandbox API at the URL serve logged');
  const url = readSandboxFile(file)?.url;
  if (!url) throw new SandboxUnreachableError(`no sandbox has run with these settings yet (no ${file}): start threadgate serve`);
  return url;
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  let res: Response;
  try {
    res = await fetch(`${url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new SandboxUnreachableError(`the sandbox at ${url} does not answer (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}): is threadgate serve running?`);
  }
  const text = await res.text();
  if (!res.ok) throw new SandboxUnreachableError(`the sandbox answered ${res.status}: ${text.slice(0, 300)}`);
  return text === '' ? undefined : JSON.parse(text);
}

export async function sandboxChatsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, CHATS_OPTIONS);
  if (positionals.length > 0) throw new UsageError(`sandbox chats takes no arguments, got "${positionals.join(' ')}"`);
  const { results } = (await call(sandboxUrl(values.config), 'GET', '/chats')) as { results: ControlChat[] };
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
  const url = sandboxUrl(values.config);
  const chatId = await chatOf(url, target);
  const attachments = (values.file ?? []).map((path) => ({
    type: /^\.(png|jpe?g|gif|webp)$/i.test(extname(path)) ? 'image' : 'file',
    name: basename(path),
    content_base64: readFileSync(resolve(path)).toString('base64'),
  }));
  const message = (await call(url, 'POST', `/chats/${chatId}/agent_messages`, { text, ...(attachments.length > 0 ? { attachments } : {}) })) as { id?: string };
  process.stdout.write(`replied in chat ${chatId}${message?.id ? ` (message ${message.id})` : ''}\n`);
  return 0;
}

/** A chat id as given, or the newest chat of a thread id. */
async function chatOf(url: string, target: string): Promise<string> {
  const { results } = (await call(url, 'GET', `/chats?thread_id=${encodeURIComponent(target)}`)) as { results: ControlChat[] };
  if (results.length > 0) return results[0]!.chat.id;
  const all = (await call(url, 'GET', '/chats')) as { results: ControlChat[] };
  if (all.results.some((r) => r.chat.id === target)) return target;
  throw new UsageError(`no chat of the sandbox has the id or thread id "${target}" (threadgate sandbox chats lists them)`);
}
