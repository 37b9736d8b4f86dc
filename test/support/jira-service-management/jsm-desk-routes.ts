/**
 * The Service Management API (`/rest/servicedeskapi`) of the counterpart —
 * after https://developer.atlassian.com/cloud/jira/service-desk/rest/
 * (api-group-servicedesk, api-group-request) and its swagger.v3.json:
 *
 *   GET  /servicedesk/{id or project key}                      ServiceDeskDTO
 *   POST /servicedesk/{id}/attachTemporaryFile                 multipart `file`; needs X-Atlassian-Token: no-check (else 403 "XSRF check failed")
 *   POST /request                                              a customer request (summary, description)
 *   GET  /request/{idOrKey}?expand=status,attachment,comment,comment.attachment
 *   GET  /request/{idOrKey}/status                             newest first
 *   GET  /request/{idOrKey}/comment?expand=attachment          customers get public comments only
 *   POST /request/{idOrKey}/comment                            {body, public}; customers may not write internal ones
 *   GET  /request/{idOrKey}/comment/{id}/attachment            experimental: needs X-ExperimentalApi: opt-in
 *   GET  /request/{idOrKey}/attachment
 *   POST /request/{idOrKey}/attachment                         {temporaryAttachmentIds, public, additionalComment}
 *   GET  /request/{idOrKey}/transition, POST the same          {id, additionalComment}
 *
 * Lists page with `start`/`limit`. Errors are `ErrorResponse`s
 * (`{"errorMessage": …, "i18nErrorMessage": {…}}`); a request the caller
 * may not see is 404, as the reference answers a customer.
 */
import { attachmentDto, commentDto, deskError, page, requestDto, statusDtos, visibleComments, visibleFiles } from './jsm-dto.ts';
import { fileParts } from './jsm-multipart.ts';
import { Refused, json, multi, paging, strictBody, type Call, type Route } from './jsm-routes.ts';
import { DESK, TRANSITIONS, type JsmIssue } from './jsm-store.ts';

const refuse = (status: number, message: string) => new Refused(json(status, deskError(message)));
const bad = (message: string) => deskError(message);

function requestOf(call: Call, idOrKey: string): JsmIssue {
  const issue = call.store.issue(decodeURIComponent(idOrKey));
  if (!issue || !call.store.sees(call.user, issue)) throw refuse(404, 'The request could not be found or you do not have permission to view it.');
  return issue;
}

const R = (tail: string) => new RegExp(`^/rest/servicedeskapi/request/([^/]+)${tail}$`);

export const deskRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/rest\/servicedeskapi\/servicedesk\/([^/]+)$/,
    handle: (call, m) => {
      const id = decodeURIComponent(m[1]!);
      if (id !== DESK.id && id.toUpperCase() !== DESK.projectKey && id !== DESK.projectId) throw refuse(404, `Service Desk with id ${id} does not exist.`);
      return json(200, { id: DESK.id, projectId: DESK.projectId, projectName: DESK.projectName, projectKey: DESK.projectKey, _links: { self: `${call.view.base}/rest/servicedeskapi/servicedesk/${DESK.id}` } });
    },
  },
  {
    method: 'POST',
    pattern: /^\/rest\/servicedeskapi\/servicedesk\/([^/]+)\/attachTemporaryFile$/,
    handle: (call, m) => {
      if (call.headers['x-atlassian-token'] !== 'no-check') return { status: 403, raw: Buffer.from('XSRF check failed'), headers: { 'content-type': 'text/plain' } };
      const id = decodeURIComponent(m[1]!);
      if (id !== DESK.id && id.toUpperCase() !== DESK.projectKey) throw refuse(404, `Service Desk with id ${id} does not exist.`);
      const parts = fileParts(call.headers['content-type'], call.body)?.filter((p) => p.field === 'file');
      if (!parts || parts.length === 0) throw refuse(400, 'No attachments were provided in the request: send them as the multipart/form-data field "file".');
      if (parts.length > 60) throw refuse(413, 'A maximum of 60 attachments can be uploaded at once.');
      const tooLarge = parts.find((p) => p.content.length > call.store.maxFileBytes);
      if (tooLarge) throw refuse(400, `The file '${tooLarge.filename}' is too large: the maximum configured attachment size is ${call.store.maxFileBytes} bytes.`);
      const temps = parts.map((p) => call.store.addTemp(call.user.accountId, p.filename, p.contentType, p.content));
      return json(201, { temporaryAttachments: temps.map((t) => ({ temporaryAttachmentId: t.id, fileName: t.filename })) });
    },
  },
  {
    method: 'POST',
    pattern: /^\/rest\/servicedeskapi\/request$/,
    handle: (call) => {
      const body = strictBody(call, ['serviceDeskId', 'requestTypeId', 'requestFieldValues', 'raiseOnBehalfOf', 'requestParticipants', 'isAdfRequest', 'form', 'channel'], bad);
      if (String(body.serviceDeskId ?? '') !== DESK.id) throw refuse(400, 'The service desk you are trying to use does not exist.');
      if (String(body.requestTypeId ?? '') !== DESK.requestTypeId) throw refuse(400, 'The request type you are trying to use does not exist.');
      const fields = (body.requestFieldValues ?? {}) as Record<string, unknown>;
      if (typeof fields.summary !== 'string' || fields.summary.trim() === '') throw refuse(400, 'Your request could not be created. Please check the fields have been correctly filled in. What do you need? (summary) is required.');
      let reporter = call.user.accountId;
      if (body.raiseOnBehalfOf !== undefined) {
        if (!call.user.agent) throw refuse(403, 'You do not have permission to raise a request on behalf of another customer.');
        if (!call.store.users.has(String(body.raiseOnBehalfOf))) throw refuse(400, `The customer ${String(body.raiseOnBehalfOf)} does not exist.`);
        reporter = String(body.raiseOnBehalfOf);
      }
      const issue = call.store.createRequest(reporter, fields.summary, typeof fields.description === 'string' ? fields.description : '');
      return json(201, requestDto(call.view, issue, new Set()));
    },
  },
  {
    method: 'GET',
    pattern: R(''),
    handle: (call, m) => json(200, requestDto(call.view, requestOf(call, m[1]!), multi(call, 'expand'), call.knobs.expandPage)),
  },
  {
    method: 'GET',
    pattern: R('/status'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const { start, limit } = paging(call);
      return json(200, page(call.view, `/request/${issue.id}/status`, statusDtos(call.view, issue), start, limit));
    },
  },
  {
    method: 'GET',
    pattern: R('/comment'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const { start, limit } = paging(call);
      const q = call.url.searchParams;
      const wanted = visibleComments(call.view, issue).filter((c) => (c.public ? q.get('public') !== 'false' : q.get('internal') !== 'false'));
      const expand = multi(call, 'expand');
      return json(200, page(call.view, `/request/${issue.id}/comment`, wanted.map((c) => commentDto(call.view, issue, c, expand, call.knobs.expandPage)), start, limit));
    },
  },
  {
    method: 'POST',
    pattern: R('/comment'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const body = strictBody(call, ['body', 'public'], bad);
      if (typeof body.public !== 'boolean') throw refuse(400, 'The field "public" is required: true for a public comment, false for an internal one.');
      if (typeof body.body !== 'string' || body.body.trim() === '') throw refuse(400, 'The comment body is required.');
      if (!body.public && !call.user.agent) throw refuse(400, 'Customers can only add public comments.');
      const comment = call.store.addComment(issue, call.user.accountId, body.body, body.public);
      return json(201, commentDto(call.view, issue, comment, new Set()));
    },
  },
  {
    method: 'GET',
    pattern: R('/comment/(\\d+)/attachment'),
    handle: (call, m) => {
      if (call.headers['x-experimentalapi'] !== 'opt-in') {
        throw refuse(412, 'This API is experimental. Experimental APIs are not guaranteed to be stable within the next few versions. If you wish to opt-in to the experimental API then include X-ExperimentalApi: opt-in in the request headers.');
      }
      const issue = requestOf(call, m[1]!);
      const comment = visibleComments(call.view, issue).find((c) => c.id === Number(m[2]));
      if (!comment) throw refuse(404, 'The comment could not be found.');
      const { start, limit } = paging(call);
      return json(200, page(call.view, `/request/${issue.id}/comment/${comment.id}/attachment`, visibleFiles(call.view, comment.fileIds).map((f) => attachmentDto(call.view, f)), start, limit));
    },
  },
  {
    method: 'GET',
    pattern: R('/attachment'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const { start, limit } = paging(call);
      return json(200, page(call.view, `/request/${issue.id}/attachment`, visibleFiles(call.view, issue.fileIds).map((f) => attachmentDto(call.view, f)), start, limit));
    },
  },
  {
    method: 'POST',
    pattern: R('/attachment'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const body = strictBody(call, ['temporaryAttachmentIds', 'public', 'additionalComment'], bad);
      const ids = body.temporaryAttachmentIds;
      if (typeof body.public !== 'boolean') throw refuse(400, 'The field "public" is required.');
      if (!Array.isArray(ids) || ids.length === 0) throw refuse(400, 'The list of temporary attachment ids is required.');
      if (!body.public && !call.user.agent) throw refuse(400, 'Customers can only add public attachments.');
      const temps = ids.map((id) => call.store.temp.get(String(id)));
      const stale = ids.find((id, i) => { const t = temps[i]; return t === undefined || t.ownerId !== call.user.accountId || Date.now() - t.at > call.store.tempTtlMs; });
      if (stale !== undefined) throw refuse(400, `The temporary attachment ${String(stale)} does not exist or has expired.`);
      const comment = body.additionalComment as { body?: unknown } | undefined;
      const text = comment === undefined ? undefined : typeof comment.body === 'string' ? comment.body : '';
      const made = call.store.attach(issue, call.user.accountId, temps as NonNullable<(typeof temps)[number]>[], body.public, text);
      const files = made.files.map((f) => attachmentDto(call.view, f));
      return json(201, { ...(made.comment ? { comment: commentDto(call.view, issue, made.comment, new Set()) } : {}), attachments: page(call.view, `/request/${issue.id}/attachment`, files, 0, files.length || 1) });
    },
  },
  {
    method: 'GET',
    pattern: R('/transition'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const now = issue.statuses.at(-1)!.category;
      const { start, limit } = paging(call);
      return json(200, page(call.view, `/request/${issue.id}/transition`, TRANSITIONS.filter((t) => (t.from as readonly string[]).includes(now)).map((t) => ({ id: t.id, name: t.name })), start, limit));
    },
  },
  {
    method: 'POST',
    pattern: R('/transition'),
    handle: (call, m) => {
      const issue = requestOf(call, m[1]!);
      const body = strictBody(call, ['id', 'additionalComment'], bad);
      const comment = (body.additionalComment as { body?: unknown } | undefined)?.body;
      if (typeof comment === 'string' && comment.trim() !== '') call.store.addComment(issue, call.user.accountId, comment, true);
      if (!call.store.transition(issue, String(body.id ?? ''))) throw refuse(400, `The transition ${String(body.id)} is not valid for this request.`);
      return { status: 204 };
    },
  },
];
