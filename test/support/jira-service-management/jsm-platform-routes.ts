/**
 * The Jira platform API (`/rest/api/3`) of the counterpart, as far as the
 * adapter uses it — after https://developer.atlassian.com/cloud/jira/platform/rest/v3/:
 *
 *   GET  /rest/api/3/myself                        api-group-myself: accountId, displayName, emailAddress, timeZone
 *   GET  /rest/api/3/search/jql, POST the same     api-group-issue-search ("enhanced search"): jql, nextPageToken, maxResults, fields → { issues, nextPageToken, isLast }
 *   GET  /rest/api/3/search, POST the same         removed (https://developer.atlassian.com/changelog/#CHANGE-2046): 410
 *   GET  /rest/api/3/issue/{idOrKey}?fields=…     api-group-issues: id, key, fields (updated, summary, status, resolution, resolutiondate, project, created)
 *   GET  /rest/api/3/attachment/content/{id}       api-group-issue-attachments: 303 to the media host, or the bytes with redirect=false
 *
 * Errors are `ErrorCollection`s (`{"errorMessages": [...], "errors": {}}`).
 */
import { platformError } from './jsm-dto.ts';
import { decodeToken, encodeToken, JqlError, parseJql, searchIssues } from './jsm-jql.ts';
import { Refused, json, strictBody, type Answer, type Call, type Route } from './jsm-routes.ts';
import { DESK, type JsmIssue } from './jsm-store.ts';
import { jiraTime } from './jsm-time.ts';

const zone = (call: Call) => call.user.timeZone ?? 'UTC';
const NO_ISSUE = platformError('Issue does not exist or you do not have permission to see it.');

function issueFields(call: Call, issue: JsmIssue, wanted: ReadonlySet<string>, updated = issue.updated): Record<string, unknown> {
  const current = issue.statuses.at(-1)!;
  const all: Record<string, unknown> = {
    updated: jiraTime(updated, zone(call)),
    created: jiraTime(issue.created, zone(call)),
    summary: issue.summary,
    status: { name: current.name, statusCategory: { key: current.category === 'DONE' ? 'done' : current.category === 'NEW' ? 'new' : 'indeterminate' } },
    resolution: issue.resolution === null ? null : { name: issue.resolution },
    resolutiondate: issue.resolutiondate === null ? null : jiraTime(issue.resolutiondate, zone(call)),
    project: { id: DESK.projectId, key: DESK.projectKey, name: DESK.projectName },
  };
  const everything = wanted.has('*all') || wanted.has('*navigable');
  return Object.fromEntries(Object.entries(all).filter(([k]) => everything || wanted.has(k)));
}

function search(call: Call, params: { jql?: unknown; nextPageToken?: unknown; maxResults?: unknown; fields?: unknown }): Answer {
  const jql = typeof params.jql === 'string' ? params.jql : '';
  const fields = new Set((Array.isArray(params.fields) ? params.fields : [params.fields ?? 'id']).flatMap((f) => String(f).split(',')).map((f) => f.trim()));
  try {
    const found = searchIssues(call.store, parseJql(jql, zone(call), call.store.siteNow()));
    const offset = typeof params.nextPageToken === 'string' && params.nextPageToken !== '' ? decodeToken(params.nextPageToken, jql) : 0;
    const asked = Number(params.maxResults ?? 50);
    const size = Math.max(1, Math.min(Number.isInteger(asked) && asked > 0 ? asked : 50, 5000, call.knobs.searchPageCap));
    const slice = found.slice(offset, offset + size);
    const isLast = offset + slice.length >= found.length;
    const issues = slice.map(({ issue, updated }) => ({
      expand: '',
      id: String(issue.id),
      self: `${call.view.base}/rest/api/3/issue/${issue.id}`,
      key: issue.key,
      fields: issueFields(call, issue, fields, updated),
    }));
    return json(200, { issues, isLast, ...(isLast ? {} : { nextPageToken: encodeToken(jql, offset + slice.length) }) });
  } catch (err) {
    if (err instanceof JqlError) return json(400, platformError(err.message));
    throw err;
  }
}

export const platformRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/rest\/api\/3\/myself$/,
    handle: (call) => {
      const u = call.user;
      return json(200, { self: `${call.view.base}/rest/api/3/user?accountId=${u.accountId}`, accountId: u.accountId, accountType: u.agent ? 'atlassian' : 'customer', emailAddress: u.email, displayName: u.displayName, active: true, timeZone: u.timeZone, locale: 'en_US' });
    },
  },
  {
    method: 'GET',
    pattern: /^\/rest\/api\/3\/search\/jql$/,
    handle: (call) => {
      const q = call.url.searchParams;
      return search(call, { jql: q.get('jql') ?? undefined, nextPageToken: q.get('nextPageToken') ?? undefined, maxResults: q.get('maxResults') ?? undefined, fields: q.getAll('fields') });
    },
  },
  {
    method: 'POST',
    pattern: /^\/rest\/api\/3\/search\/jql$/,
    handle: (call) => search(call, strictBody(call, ['jql', 'nextPageToken', 'maxResults', 'fields', 'expand', 'properties', 'fieldsByKeys', 'failFast', 'reconcileIssues'], (m) => platformError(m))),
  },
  ...['GET', 'POST'].map((method) => ({
    method,
    pattern: /^\/rest\/api\/[23]\/search$/,
    handle: () => json(410, platformError('The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046')),
  })),
  {
    method: 'GET',
    pattern: /^\/rest\/api\/3\/issue\/([^/]+)$/,
    handle: (call, m) => {
      const issue = call.store.issue(decodeURIComponent(m[1]!));
      if (!issue || !call.store.sees(call.user, issue)) return json(404, NO_ISSUE);
      const wanted = new Set(call.url.searchParams.getAll('fields').flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean));
      return json(200, { expand: '', id: String(issue.id), self: `${call.view.base}/rest/api/3/issue/${issue.id}`, key: issue.key, fields: issueFields(call, issue, wanted.size === 0 ? new Set(['*all']) : wanted) });
    },
  },
  {
    method: 'GET',
    pattern: /^\/rest\/api\/3\/attachment\/content\/(\d+)$/,
    handle: (call, m): Answer => {
      const file = call.store.files.get(Number(m[1]));
      const issue = file && call.store.issues.get(file.issueId);
      if (!file || !issue || !call.store.sees(call.user, issue) || (!call.user.agent && !file.public)) {
        throw new Refused(json(404, platformError(`The attachment with id '${m[1]}' does not exist`)));
      }
      if (call.url.searchParams.get('redirect') !== 'false') {
        // Jira answers with its media host's address; here it is under /media-file/ of the same server.
        return { status: 303, headers: { location: `${call.view.base}/media-file/${file.id}?token=${mediaToken(file.id)}` } };
      }
      return { status: 200, raw: file.content, headers: { 'content-type': file.mimeType, 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}` } };
    },
  },
];

/** The media host's short-lived token for a file (no credentials go there). */
export const mediaToken = (id: number) => Buffer.from(`media-${id}`).toString('base64url');
