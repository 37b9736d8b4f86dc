/**
 * A Zammad ticket, its articles and its history as a `Ticket`
 * (../ticket/ticket-adapter.ts):
 *
 *   the first article                → the opening: its text is the description, its files the ticket's
 *   a later article, internal: false → a public entry (a customer's mail or web note, an agent's email or public note)
 *   a later article, internal: true  → a private entry: never posted
 *   state into a closed or merged type  (history)  → statusChange 'closed'
 *   state out of one, into an open type (history)  → statusChange 'reopened'
 *   anything else (owner, priority, tags, moves among open states) → no entry
 *
 * Order: `seq` is the article id × 1000 (ids grow as articles are written);
 * a state change is placed after the newest article written before it
 * (`id × 1000 + n`, the n-th such change), so entries keep their `seq`
 * across reads and a new article always comes after every earlier change.
 * Texts are read as the e-mail connector reads a mail: the plain body, or the
 * HTML one turned into text; quoted history and signature cut.
 */
import { readableText, stripQuotes } from '../../src/connector/api.ts';
import type { Ticket, TicketAttachment, TicketEntry, TicketPerson } from '../ticket/ticket-adapter.ts';
import type { ZammadArticle, ZammadHistoryItem, ZammadTicket } from './zammad-schemas.ts';

export const SEQ_STEP = 1000;

export interface TicketParts {
  ticket: ZammadTicket;
  articles: readonly ZammadArticle[];
  history: readonly ZammadHistoryItem[];
  /** Each user named by the ticket and its articles and history, by id. */
  people: ReadonlyMap<number, TicketPerson>;
  /** State names and ids of the closed and merged types. */
  closed: { names: ReadonlySet<string>; ids: ReadonlySet<number> };
  webUrl: string;
  /** Where a file of an article is downloaded: `<api>/ticket_attachment/<ticket>/<article>/<file>`. */
  fileUrl: (articleId: number, fileId: number) => string;
  settled: boolean;
}

/** The author of an article: the person it was written for (`origin_by_id`, a phone note by an agent), else its writer. */
export const authorIdOf = (article: ZammadArticle): number => article.origin_by_id ?? article.created_by_id;

export function ticketOf(parts: TicketParts): Ticket {
  const { ticket, closed } = parts;
  const person = (id: number): TicketPerson => parts.people.get(id) ?? { id: String(id), name: `Zammad user ${id}` };
  const articles = [...parts.articles].sort((a, b) => a.id - b.id);
  const [opening, ...later] = articles;
  const entries: TicketEntry[] = later.map((a) => ({
    id: String(a.id),
    seq: a.id * SEQ_STEP,
    author: person(authorIdOf(a)),
    createdAt: a.created_at,
    text: textOf(a),
    private: a.internal,
    statusChange: null,
    attachments: filesOf(a, parts.fileUrl),
  }));
  const placed = new Map<number, number>();
  for (const h of parts.history) {
    if ((h.object ?? 'Ticket') !== 'Ticket' || h.attribute !== 'state' || h.type !== 'updated') continue;
    const was = closed.names.has(h.value_from ?? '');
    const is = closed.names.has(h.value_to ?? '');
    if (was === is) continue;
    // After the newest article written before it (by time; ids of the same instant by id).
    const at = Date.parse(h.created_at);
    const before = articles.filter((a) => Date.parse(a.created_at) <= at).at(-1)?.id ?? 0;
    const n = (placed.get(before) ?? 0) + 1;
    placed.set(before, n);
    entries.push({
      id: `state-${h.id}`,
      seq: before * SEQ_STEP + Math.min(n, SEQ_STEP - 1),
      author: person(h.created_by_id),
      createdAt: h.created_at,
      text: '',
      private: false,
      statusChange: is ? 'closed' : 'reopened',
      attachments: [],
    });
  }
  entries.sort((a, b) => a.seq - b.seq);
  const openingText = opening && !opening.internal ? textOf(opening) : '';
  return {
    id: String(ticket.id),
    webUrl: parts.webUrl,
    subject: ticket.title ?? '',
    description: openingText,
    author: person(ticket.customer_id),
    createdAt: ticket.created_at,
    updatedAt: ticket.updated_at,
    settled: parts.settled,
    closed: closed.ids.has(ticket.state_id),
    private: false,
    attachments: opening && !opening.internal ? filesOf(opening, parts.fileUrl) : [],
    entries,
  };
}

/** An article's files as Zammad lists them (`preferences` names the type: `Content-Type` for mail, `Mime-Type` for API uploads). */
function filesOf(article: ZammadArticle, fileUrl: TicketParts['fileUrl']): TicketAttachment[] {
  return article.attachments.map((file) => {
    const prefs = file.preferences ?? {};
    const declared = [prefs['Content-Type'], prefs['Mime-Type'], prefs['content_type']].find((v): v is string => typeof v === 'string' && v.trim() !== '');
    const size = Number(file.size ?? 0);
    return {
      id: String(file.id),
      filename: file.filename,
      size: Number.isFinite(size) && size >= 0 ? size : 0,
      contentType: declared?.split(';')[0]!.trim().toLowerCase() || 'application/octet-stream',
      url: fileUrl(article.id, file.id),
    };
  });
}

/** An article's text for the chat: plain, else HTML as text; quoted history and signature cut. */
function textOf(article: ZammadArticle): string {
  const body = article.body ?? '';
  const html = /html/i.test(article.content_type ?? '');
  const text = html ? readableText('', body) : readableText(body, false);
  return text.trim() === '' ? '' : stripQuotes(text);
}
