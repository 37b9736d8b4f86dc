/**
 * The fenced code blocks of README.md, docs/*.md and the decision records
 * (docs/decisions/*.md), for the tests that keep them working
 * (snippets.test.ts): each with its file, line and language, the
 * settings file a YAML block stands for, and the `threadgate …` commands of a
 * shell block.
 *
 * A YAML block is checked as settings unless the line right before its fence
 * is `<!-- snippet: not-settings -->` (a compose file, a manifest). A block
 * that is a list of entries (`- name: …`) or one entry (`name:` and `type:`
 * at its top) is a fragment of `connectors:` and is checked inside one. A
 * block of some keys of one connector's entries says so before its fence,
 * `<!-- snippet: keys of a redmine entry -->`, and is checked within the
 * first whole example of that connector type in the documents.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseDocument, stringify } from 'yaml';

export const ROOT = join(import.meta.dirname, '../..');
export const NOT_SETTINGS = /^<!--\s*snippet:\s*not-settings\b.*-->$/;
const ENTRY_KEYS = /^<!--\s*snippet:\s*keys of an? ([a-z0-9-]+) entry\s*-->$/;

export interface Block {
  /** `README.md`, `docs/deployment.md`… */
  file: string;
  /** 1-based line of the block's first line (after the fence). */
  line: number;
  lang: string;
  text: string;
  /** The non-blank line before the fence. */
  before: string;
}

export function docFiles(): string[] {
  const md = (folder: string) => readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.md')).sort().map((f) => `${folder}/${f}`);
  return ['README.md', ...md('docs'), ...md('docs/chat-apps'), ...md('docs/decisions')];
}

export function fencedBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  let before = '';
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.trim() !== '') before = lines[i]!.trim();
      continue;
    }
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence)) body.push(lines[j++]!.slice(indent.length));
    blocks.push({ file, line: i + 2, lang: lang.toLowerCase(), text: body.join('\n') + '\n', before });
    before = '';
    i = j;
  }
  return blocks;
}

export const isYaml = (b: Block): boolean => b.lang === 'yaml' || b.lang === 'yml';
export const isShell = (b: Block): boolean => ['sh', 'bash', 'shell', 'console'].includes(b.lang);

/** The settings file a YAML block stands for, and how many lines were put before the block's own. */
export function asSettingsFile(text: string): { text: string; linesBefore: number } {
  const doc = parseDocument(text);
  const top: unknown = doc.errors.length === 0 ? doc.toJS() : undefined;
  const lines = dedent(text.replace(/\n$/, '').split('\n'));
  if (Array.isArray(top) || (doc.errors.length > 0 && lines.find(isContent)?.startsWith('- '))) {
    return { text: `connectors:\n${lines.map((l) => (l === '' ? l : `  ${l}`)).join('\n')}\n`, linesBefore: 1 };
  }
  if (isEntry(top)) {
    const first = lines.findIndex(isContent);
    const indented = lines.map((l, i) => (i === first ? `  - ${l}` : l === '' ? l : `    ${l}`));
    return { text: `connectors:\n${indented.join('\n')}\n`, linesBefore: 1 };
  }
  return { text, linesBefore: 0 };
}

/** The connector type a block holds some entry keys of (its marker), if any. */
export function entryKeysOf(block: Block): string | undefined {
  return ENTRY_KEYS.exec(block.before)?.[1];
}

/** A settings file of `base`'s first entry of `type`, with `keys` (a block's mapping) put into it; undefined without one. */
export function withEntryKeys(base: readonly Block[], type: string, keys: string): string | undefined {
  for (const block of base) {
    const settings = parse(asSettingsFile(block.text).text) as { connectors?: Record<string, unknown>[] } | null;
    const entry = settings?.connectors?.find((c) => c.type === type);
    if (entry !== undefined) return stringify({ connectors: [{ ...entry, ...(parse(keys) as object) }] });
  }
  return undefined;
}

const isContent = (line: string): boolean => line.trim() !== '' && !line.trimStart().startsWith('#');

function isEntry(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'name' in value && 'type' in value;
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut));
}

/**
 * A value for each `${VAR}` of a snippet that any key it can stand for
 * accepts: a port or a URL by its name, a chat app's token in its own shape
 * (`SHAPED`); anything else a Standard Webhooks secret (`whsec_` and 32 bytes
 * of base64), which is also a fine token, password, API key or 32-character
 * store key.
 */
export function plausibleEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, name] of text.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) {
    env[name!] = /PORT$/.test(name!) ? '8080' : /URL$/.test(name!) ? 'https://service.example.com' : (SHAPED.find(([n]) => n.test(name!))?.[1] ?? SECRET);
  }
  return env;
}

/** Secrets whose settings check their vendor's shape, by the variable's name. */
const SHAPED: [RegExp, string][] = [
  [/^TELEGRAM_BOT_TOKEN$/, '123456789:AAHdocsExampleToken_0123456789abcdefghi'],
  [/^SLACK_BOT_TOKEN$/, 'xoxb-1234567890-1234567890123-docsExampleToken'],
  [/^SLACK_SIGNING_SECRET$/, '8f742231b10e8888abcd99yyyzzz85a5'],
  [/^TELEGRAM_WEBHOOK_SECRET$/, 'telegram-secret_token-0123456789'],
];

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** Each `threadgate …` command of a shell block, as its words (after `threadgate`), with the line it is on. */
export function threadgateCommands(block: Block): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  const lines = block.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const start = i;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!}`;
    const code = line.replace(/(^|\s)#.*$/, '');
    for (const part of code.split(/&&|\|\||;|\||\$\(/)) {
      const words = part.trim().replace(/^\$\s+/, '').split(/\s+/);
      if (words[0] === 'npx') words.shift();
      if (words[0] === 'threadgate' && words.length > 1) out.push({ line: block.line + start, words: words.slice(1) });
    }
  }
  return out;
}
