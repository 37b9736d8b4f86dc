/**
 * A ticket's files as the platform's agents can open them, through any
 * `TicketAdapter`: each downloaded from the ticket system, kept in the
 * gateway's file store (`ctx.files.put`) and listed under the message text
 * with its signed link, in the e-mail connector's line format —
 *
 *   [attachment: invoice.pdf, 24 KB] https://gw.example.com/files/…?e=…&s=…
 *   [attachment: scan.tiff, 31.2 MB — not kept: over the 10.0 MB limit per file]
 *   [attachment: old.log, 2 KB — not kept: Redmine did not hand it out]
 *
 * Limits (`attachments.max_file_bytes`, `attachments.max_note_bytes` for all
 * files of one message): a file over one is listed as not kept, never dropped
 * silently; a message's files are kept in order until its budget is spent.
 * The size the system lists decides first; the download is capped all the
 * same, so a file larger than listed is refused as it arrives. A file the
 * system does not hand out (deleted, forbidden) is listed as such; any other
 * download failure is thrown (the poller retries the message). All files are
 * downloaded before the first is stored, so a failed download stores nothing.
 * With `keep: false` the lines are `[attachment: name, size]`, no link.
 */
import { formatSize, type FileStore } from '../../src/connector/api.ts';
import { TicketAttachmentTooLargeError, TicketAttachmentUnavailableError, type TicketAdapter, type TicketAttachment } from './ticket-adapter.ts';

export interface FileLimits {
  keep: boolean;
  max_file_bytes: number;
  max_note_bytes: number;
}

const MIB = 1024 * 1024;
export const DEFAULT_FILE_LIMITS: FileLimits = { keep: true, max_file_bytes: 10 * MIB, max_note_bytes: 25 * MIB };

type Outcome = { line: string } | { label: string; file: TicketAttachment; content: Buffer };

/** The lines listing `files` under a message's text, keeping each that fits in the store. */
export async function keptFileLines(
  files: readonly TicketAttachment[],
  limits: FileLimits,
  adapter: TicketAdapter,
  store: FileStore,
  signal: AbortSignal,
): Promise<string[]> {
  if (!limits.keep) return files.map((f) => `[attachment: ${f.filename}, ${formatSize(f.size)}]`);
  const perFile = `over the ${formatSize(limits.max_file_bytes)} limit per file`;
  const perNote = `over the ${formatSize(limits.max_note_bytes)} limit per note`;
  const outcomes: Outcome[] = [];
  let budget = limits.max_note_bytes;
  for (const file of files) {
    const label = `attachment: ${file.filename}, ${formatSize(file.size)}`;
    const notKept = (why: string) => outcomes.push({ line: `[${label} — not kept: ${why}]` });
    if (file.size > limits.max_file_bytes) {
      notKept(perFile);
      continue;
    }
    if (file.size > budget) {
      notKept(perNote);
      continue;
    }
    try {
      const content = await adapter.downloadAttachment(file, Math.min(limits.max_file_bytes, budget), signal);
      budget -= content.length;
      outcomes.push({ label, file, content });
    } catch (err) {
      if (err instanceof TicketAttachmentUnavailableError) notKept(`${adapter.system} did not hand it out`);
      else if (err instanceof TicketAttachmentTooLargeError) notKept(budget < limits.max_file_bytes ? perNote : perFile);
      else throw err;
    }
  }
  const lines: string[] = [];
  for (const outcome of outcomes) {
    if ('line' in outcome) {
      lines.push(outcome.line);
      continue;
    }
    const kept = await store.put({ filename: outcome.file.filename, contentType: outcome.file.contentType, content: outcome.content });
    lines.push(`[${outcome.label}] ${kept.url}`);
  }
  return lines;
}

/** A message's body: its text, then its file lines after a blank line (the lines alone when there is no text). */
export function withFileLines(text: string, lines: readonly string[]): string {
  if (lines.length === 0) return text;
  return text === '' ? lines.join('\n') : `${text}\n\n${lines.join('\n')}`;
}
