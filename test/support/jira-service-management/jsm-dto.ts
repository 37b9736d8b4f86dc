/**
 * The JSON the Jira Service Management counterpart answers with, shaped as
 * the reference's schemas and examples (swagger.v3.json of both APIs):
 * `UserDTO`, `CommentDTO`, `AttachmentDTO`, `CustomerRequestDTO`,
 * `CustomerRequestStatusDTO`, the `PagedDTO` wrapper (`start`, `limit`,
 * `size`, `isLastPage`, `values`, `_links`), and the error bodies —
 * `ErrorResponse` of the Service Management API and `ErrorCollection` of the
 * platform API. Times are written in the viewer's zone.
 */
import { dateDto } from './jsm-time.ts';
import { DESK, type JsmComment, type JsmFile, type JsmIssue, type JsmStore, type JsmUser } from './jsm-store.ts';

export interface View {
  store: JsmStore;
  /** The site root (`http://127.0.0.1:port`). */
  base: string;
  viewer: JsmUser;
}

const zoneOf = (view: View) => view.viewer.timeZone ?? 'UTC';

export const deskError = (message: string, key = 'sd.error') => ({ errorMessage: message, i18nErrorMessage: { i18nKey: key, parameters: [] } });
export const platformError = (...messages: string[]) => ({ errorMessages: messages, errors: {} });

export function userDto(view: View, accountId: string) {
  const user = view.store.users.get(accountId);
  return {
    accountId,
    emailAddress: user?.email ?? null,
    displayName: user?.displayName ?? accountId,
    active: true,
    timeZone: user?.timeZone ?? null,
    _links: { jiraRest: `${view.base}/rest/api/2/user?accountId=${accountId}`, avatarUrls: {}, self: `${view.base}/rest/api/2/user?accountId=${accountId}` },
  };
}

/** A page of `all` from `start`, at most `limit` long. */
export function page<T>(view: View, path: string, all: readonly T[], start: number, limit: number) {
  const values = all.slice(start, start + limit);
  const isLastPage = start + values.length >= all.length;
  const link = (s: number) => `${view.base}/rest/servicedeskapi${path}?start=${s}&limit=${limit}`;
  return {
    _expands: [],
    size: values.length,
    start,
    limit,
    isLastPage,
    _links: { base: `${view.base}/rest/servicedeskapi`, context: '', ...(isLastPage ? {} : { next: link(start + values.length) }), ...(start > 0 ? { prev: link(Math.max(0, start - limit)) } : {}) },
    values,
  };
}

export function attachmentDto(view: View, file: JsmFile) {
  return {
    filename: file.filename,
    author: userDto(view, file.authorId),
    created: dateDto(file.created, zoneOf(view)),
    size: file.content.length,
    mimeType: file.mimeType,
    _links: {
      jiraRest: `${view.base}/rest/api/2/attachment/${file.id}`,
      content: `${view.base}/servicedesk/customershim/secure/attachment/${file.id}/${encodeURIComponent(file.filename)}`,
      ...(file.mimeType.startsWith('image/') ? { thumbnail: `${view.base}/servicedesk/customershim/secure/thumbnail/${file.id}/_thumb_${file.id}.png` } : {}),
    },
  };
}

/** The files the viewer may see: agents all, customers the public ones. */
export function visibleFiles(view: View, ids: readonly number[]): JsmFile[] {
  return ids.map((id) => view.store.files.get(id)!).filter((f) => f !== undefined && (view.viewer.agent || f.public));
}

export function commentDto(view: View, issue: JsmIssue, comment: JsmComment, expand: ReadonlySet<string>, filesPage = 50) {
  const files = visibleFiles(view, comment.fileIds).map((f) => attachmentDto(view, f));
  return {
    _expands: ['attachment', 'renderedBody'],
    id: String(comment.id),
    body: comment.body,
    public: comment.public,
    author: userDto(view, comment.authorId),
    created: dateDto(comment.created, zoneOf(view)),
    ...(expand.has('attachment') ? { attachments: page(view, `/request/${issue.id}/comment/${comment.id}/attachment`, files, 0, filesPage) } : {}),
    _links: { self: `${view.base}/rest/servicedeskapi/request/${issue.id}/comment/${comment.id}` },
  };
}

/** The status history as the reference lists it: newest first. */
export function statusDtos(view: View, issue: JsmIssue) {
  return [...issue.statuses].reverse().map((s) => ({ status: s.name, statusCategory: s.category, statusDate: dateDto(s.at, zoneOf(view)) }));
}

export function visibleComments(view: View, issue: JsmIssue): JsmComment[] {
  return issue.comments.filter((c) => view.viewer.agent || c.public);
}

/** A `CustomerRequestDTO` with the expansions asked (`status`, `attachment`, `comment`, `comment.attachment`), each a first page. */
export function requestDto(view: View, issue: JsmIssue, expand: ReadonlySet<string>, expandPage = 50) {
  const current = issue.statuses.at(-1)!;
  const zone = zoneOf(view);
  const commentExpand = new Set(expand.has('comment.attachment') ? ['attachment'] : []);
  return {
    _expands: ['participant', 'status', 'sla', 'requestType', 'serviceDesk', 'attachment', 'action', 'comment'],
    issueId: String(issue.id),
    issueKey: issue.key,
    requestTypeId: DESK.requestTypeId,
    serviceDeskId: DESK.id,
    createdDate: dateDto(issue.created, zone),
    reporter: userDto(view, issue.reporterId),
    requestFieldValues: [
      { fieldId: 'summary', label: 'What do you need?', value: issue.summary },
      { fieldId: 'description', label: 'Why do you need this?', value: issue.description, renderedValue: { html: `<p>${issue.description}</p>` } },
    ],
    currentStatus: { status: current.name, statusCategory: current.category, statusDate: dateDto(current.at, zone) },
    ...(expand.has('status') ? { status: page(view, `/request/${issue.id}/status`, statusDtos(view, issue), 0, expandPage) } : {}),
    ...(expand.has('attachment') ? { attachments: page(view, `/request/${issue.id}/attachment`, visibleFiles(view, issue.fileIds).map((f) => attachmentDto(view, f)), 0, expandPage) } : {}),
    ...(expand.has('comment') || expand.has('comment.attachment')
      ? { comments: page(view, `/request/${issue.id}/comment`, visibleComments(view, issue).map((c) => commentDto(view, issue, c, commentExpand, expandPage)), 0, expandPage) }
      : {}),
    _links: {
      jiraRest: `${view.base}/rest/api/2/issue/${issue.id}`,
      web: `${view.base}/servicedesk/customer/portal/${DESK.id}/${issue.key}`,
      self: `${view.base}/rest/servicedeskapi/request/${issue.id}`,
      agent: `${view.base}/browse/${issue.key}`,
    },
  };
}
