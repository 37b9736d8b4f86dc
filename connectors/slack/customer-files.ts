/**
 * A customer's files as the platform's agents can open them: each file of a
 * message downloaded from Slack with the bot token (file-transfer.ts), kept
 * in the gateway's file store (`ctx.files.put`) and listed under the text
 * with its signed link, in the other connectors' line format —
 *
 *   [attachment: invoice.pdf, 24 KB] https://gw.example.com/files/…?e=…&s=…
 *   [attachment: scan.tiff, 31.2 MB — not kept: over the 10.0 MB limit per file]
 *   [attachment: notes.txt, 2 KB — not kept: Slack did not hand it out]
 *
 * A file the event names only by id (`file_access: check_file_info`, as in
 * Slack Connect channels) is read with files.info first. A deleted
 * (`tombstone`) or external file (held outside Slack: a link) is listed, not
 * downloaded. Limits: `attachments.max_file_bytes` per file and
 * `max_message_bytes` for all files of one message, kept in order until the
 * budget is spent; none is dropped silently. A download that may pass (429,
 * 5xx, no answer) is thrown for the caller to try again, unless this is its
 * last try: then the file is listed as not kept, with why. All files are
 * downloaded before the first is stored. `keep: false`: `[attachment: name, size]`.
 */
import { formatSize, type FileStore } from '../../src/connector/api.ts';
import type { FileLimits } from './config.ts';
import { downloadFile } from './file-transfer.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackFileTooLargeError, SlackFileUnavailableError, SlackRefusedError } from './slack-errors.ts';
import { FileInfo, type SlackFile } from './slack-schemas.ts';

type Outcome = { line: string } | { label: string; filename: string; contentType: string; content: Buffer };

export interface KeepOptions {
  signal: AbortSignal;
  /** Files that fail for now are listed as not kept instead of failing the message. */
  lastTry: boolean;
}

export async function customerFileLines(files: readonly SlackFile[], api: SlackApi, store: FileStore, limits: FileLimits, options: KeepOptions): Promise<string[]> {
  const perFile = `over the ${formatSize(limits.max_file_bytes)} limit per file`;
  const perMessage = `over the ${formatSize(limits.max_message_bytes)} limit per message`;
  const outcomes: Outcome[] = [];
  let budget = limits.max_message_bytes;
  for (const listed of files) {
    const file = await described(listed, api, options);
    const name = file.name?.trim() || file.title?.trim() || file.id;
    const size = file.size ?? 0;
    const label = `attachment: ${name}, ${formatSize(size)}`;
    const notKept = (why: string) => outcomes.push({ line: `[${label} — not kept: ${why}]` });
    if (file.mode === 'tombstone') {
      outcomes.push({ line: `[attachment: ${name} — not kept: deleted in Slack]` });
      continue;
    }
    if (file.mode === 'external') {
      outcomes.push({ line: `[attachment: ${name} — not kept: a file held outside Slack]` });
      continue;
    }
    if (!limits.keep) {
      outcomes.push({ line: `[${label}]` });
      continue;
    }
    if (size > limits.max_file_bytes) {
      notKept(perFile);
      continue;
    }
    if (size > budget) {
      notKept(perMessage);
      continue;
    }
    const url = file.url_private_download || file.url_private;
    if (!url) {
      notKept('Slack did not hand it out (no download address)');
      continue;
    }
    const contentType = file.mimetype || 'application/octet-stream';
    try {
      const content = await downloadFile(api, { name, url, mimetype: contentType }, Math.min(limits.max_file_bytes, budget), options.signal);
      budget -= content.length;
      outcomes.push({ label: `attachment: ${name}, ${formatSize(content.length)}`, filename: name, contentType, content });
    } catch (err) {
      if (err instanceof SlackFileUnavailableError) notKept('Slack did not hand it out');
      else if (err instanceof SlackFileTooLargeError) notKept(budget < limits.max_file_bytes ? perMessage : perFile);
      else if (options.lastTry && !options.signal.aborted) notKept(`it could not be downloaded (${(err as Error).message})`);
      else throw err;
    }
  }
  const lines: string[] = [];
  for (const outcome of outcomes) {
    if ('line' in outcome) {
      lines.push(outcome.line);
      continue;
    }
    const kept = await store.put({ filename: outcome.filename, contentType: outcome.contentType, content: outcome.content });
    lines.push(`[${outcome.label}] ${kept.url}`);
  }
  return lines;
}

/** The whole file object: as the event gave it, or from files.info when the event names only its id. */
async function described(file: SlackFile, api: SlackApi, options: KeepOptions): Promise<SlackFile> {
  if (file.file_access !== 'check_file_info' && (file.url_private_download || file.url_private || file.mode === 'tombstone' || file.mode === 'external')) return file;
  try {
    return (await api.call('files.info', { file: file.id }, FileInfo, { signal: options.signal })).file;
  } catch (err) {
    // Refused for good (file_not_found, no access): listed as not handed out; anything else is tried again.
    if (err instanceof SlackRefusedError || options.lastTry) return { ...file, url_private_download: null, url_private: null };
    throw err;
  }
}
