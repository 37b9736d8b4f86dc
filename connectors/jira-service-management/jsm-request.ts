/**
 * Reading one customer request with everything the ticket needs, in as few
 * calls as Jira allows (its rate limits are by cost, and unpublished):
 *
 *   GET /rest/api/3/issue/{id}?fields=updated,summary,resolution,…   `updated` (what the search lists), resolution, status category
 *   GET /rest/servicedeskapi/request/{id}?expand=status,attachment,comment,comment.attachment
 *                                                                     reporter, fields, and the first page of each list
 *
 * and, only when an expanded list says it is not the last page, the rest
 * from its own paged endpoint (`start`/`limit`): `…/status`,
 * `…/attachment`, `…/comment?expand=attachment`, and a comment's files from
 * `…/comment/{id}/attachment` (experimental: every request carries
 * `X-ExperimentalApi: opt-in`). The issue is read first: a change made
 * while the rest is read shows in the lists, and its later `updated`
 * makes the poller read the request again.
 */
import type { z } from 'zod';
import { TicketSystemError } from '../ticket/ticket-adapter.ts';
import { parseAnswer } from '../ticket/ticket-http.ts';
import type { JsmHttp } from './jsm-http.ts';
import { AttachmentDTO, CommentDTO, CustomerRequest, Issue, StatusDTO, paged, type CommentRow } from './jsm-schemas.ts';
import type { RequestParts } from './jsm-ticket.ts';

/** A read this long after `updated` (by Jira's clock, whole seconds) is settled: a later change gets a later `updated`. */
export const SETTLE_MS = 1_000;
/** Items per page of a Service Management list (its default is 50). */
export const LIST_PAGE = 50;

type Page<T> = { start: number; size: number; isLastPage: boolean; values: T[] };

export class RequestReader {
  readonly #http: JsmHttp;
  readonly #pageSize: number;

  constructor(http: JsmHttp, pageSize = LIST_PAGE) {
    this.#http = http;
    this.#pageSize = pageSize;
  }

  /** The request's parts; 404 when it is not a request of the project `projectId` (moved, or an issue without a request type). */
  async read(id: string, projectId: string, signal: AbortSignal): Promise<Omit<RequestParts, 'baseUrl'>> {
    const path = `/rest/servicedeskapi/request/${encodeURIComponent(id)}`;
    const issueAnswer = await this.#http.get(`/rest/api/3/issue/${encodeURIComponent(id)}`, { fields: 'updated,summary,resolution,resolutiondate,status,project' }, signal);
    const issue = this.#parse(Issue, issueAnswer.json, `issue/${id}`);
    if (issue.fields.project.id !== projectId) {
      throw new TicketSystemError(`Jira at ${this.#http.host}: issue ${issue.key} is no longer in the service desk's project`, { status: 404 });
    }
    const expand = 'status,attachment,comment,comment.attachment';
    const json = (await this.#http.get(path, { expand }, signal)).json as Record<string, unknown> | undefined;
    const request = this.#parse(CustomerRequest, json, `request/${id}`);
    const statusPage = this.#parse(paged(StatusDTO).nullish(), json?.status, `request/${id} status`);
    const filePage = this.#parse(paged(AttachmentDTO).nullish(), json?.attachments, `request/${id} attachments`);
    const commentPage = this.#parse(paged(CommentDTO).nullish(), json?.comments, `request/${id} comments`);
    const statuses = await this.#all(statusPage, `${path}/status`, {}, StatusDTO, signal);
    const attachments = await this.#all(filePage, `${path}/attachment`, {}, AttachmentDTO, signal);
    const comments: CommentRow[] = [];
    for (const comment of await this.#all(commentPage, `${path}/comment`, { expand: 'attachment' }, CommentDTO, signal)) {
      const files = comment.attachments;
      if (files && !files.isLastPage) {
        const all = await this.#all(files, `${path}/comment/${comment.id}/attachment`, {}, AttachmentDTO, signal);
        comments.push({ ...comment, attachments: { ...files, size: all.length, isLastPage: true, values: all } });
      } else comments.push(comment);
    }
    const date = issueAnswer.date?.getTime();
    return {
      issue,
      request,
      // The reference lists the status history newest first.
      statuses: [...statuses].sort((a, b) => a.statusDate.epochMillis - b.statusDate.epochMillis),
      comments,
      attachments,
      settled: date !== undefined && date - Date.parse(issue.fields.updated) >= SETTLE_MS,
    };
  }

  /** Every item of a paged list: the first page given (when the request expanded it), then the rest from `path`. */
  async #all<T extends z.ZodType>(first: Page<z.output<T>> | null | undefined, path: string, query: Record<string, string>, item: T, signal: AbortSignal): Promise<z.output<T>[]> {
    const out: z.output<T>[] = [...(first?.values ?? [])];
    let page: Page<z.output<T>> | undefined = first ?? undefined;
    let start = first ? first.start + first.size : 0;
    while (page === undefined || !page.isLastPage) {
      const json = (await this.#http.get(path, { ...query, start, limit: this.#pageSize }, signal)).json;
      page = this.#parse(paged(item), json, path.replace(/^\/rest\/servicedeskapi\//, '')) as Page<z.output<T>>;
      out.push(...page.values);
      if (page.size === 0) break;
      start = page.start + page.size;
    }
    return out;
  }

  #parse<T extends z.ZodType>(schema: T, json: unknown, what: string): z.output<T> {
    return parseAnswer(schema, json, `Jira at ${this.#http.host}`, what);
  }
}
