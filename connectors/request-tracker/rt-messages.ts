/**
 * The message of a Create, Correspond or Comment transaction: its text and
 * its files, read from RT's attachment rows —
 *
 *   GET /transaction/:id/attachments?fields=ContentType,Filename,ContentLength   the parts, without their bytes
 *   GET /attachment/:id                                                          a text part's bytes (base64)
 *
 * A part with a file name is a file; the text is the first text/plain part
 * without one that holds anything, else the first text/html one (turned into
 * text as the e-mail connector does). A transaction never changes, so what
 * was read is kept (the newest few thousand), and a ticket read again costs
 * only its new transactions.
 */
import type { TicketAttachment } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { RtHttp } from './rt-http.ts';
import { Part, PartList, type RtPartRow } from './rt-schemas.ts';

export interface RtMessage {
  /** The text part as sent (LF line ends), '' when none. */
  plain: string;
  /** The HTML part when there is no plain one holding anything. */
  html: string | undefined;
  files: TicketAttachment[];
}

const KEPT = 5_000;
const PAGE = 100;

export class RtMessages {
  readonly #http: RtHttp;
  readonly #kept = new Map<string, RtMessage>();

  constructor(http: RtHttp) {
    this.#http = http;
  }

  /** The REST2 URL of an attachment row: where its bytes are read. */
  partUrl(partId: string): string {
    return `${this.#http.baseUrl}/attachment/${partId}`;
  }

  async of(transactionId: string, signal: AbortSignal): Promise<RtMessage> {
    const kept = this.#kept.get(transactionId);
    if (kept) return kept;
    const rows: RtPartRow[] = [];
    for (let page = 1; ; page += 1) {
      const query = { fields: 'ContentType,Filename,ContentLength', per_page: PAGE, page };
      const list = parseAnswer(PartList, (await this.#http.get(`/transaction/${transactionId}/attachments`, query, signal)).json, `RT at ${this.#http.host}`, `transaction/${transactionId}/attachments`);
      rows.push(...list.items);
      // Rows the gateway may not see are dropped after paging: only an empty page ends the list.
      if (list.count === 0) break;
    }
    const message: RtMessage = { plain: '', html: undefined, files: [] };
    for (const row of rows) {
      const type = (row.ContentType ?? '').toLowerCase().split(';')[0]!.trim();
      if (row.Filename) {
        message.files.push({ id: row.id, filename: row.Filename, size: Number(row.ContentLength ?? 0) || 0, contentType: type || 'application/octet-stream', url: this.partUrl(row.id) });
      }
    }
    const plain = rows.filter((r) => !r.Filename && (r.ContentType ?? '').toLowerCase().startsWith('text/plain'));
    for (const row of plain) {
      message.plain = await this.#text(row.id, signal);
      if (message.plain.trim() !== '') break;
    }
    if (message.plain.trim() === '') {
      const html = rows.find((r) => !r.Filename && (r.ContentType ?? '').toLowerCase().startsWith('text/html'));
      if (html) message.html = await this.#text(html.id, signal);
    }
    this.#kept.set(transactionId, message);
    if (this.#kept.size > KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    return message;
  }

  async #text(partId: string, signal: AbortSignal): Promise<string> {
    const part = parseAnswer(Part, (await this.#http.get(`/attachment/${partId}`, {}, signal)).json, `RT at ${this.#http.host}`, `attachment/${partId}`);
    return Buffer.from(part.Content ?? '', 'base64').toString('utf8').replace(/\r\n?/g, '\n');
  }
}
