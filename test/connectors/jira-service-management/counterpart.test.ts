/**
 * The Jira Cloud counterpart refuses what the reference says Jira refuses,
 * in Jira's own error bodies — so an adapter that passes against it does not
 * pass by the counterpart's leniency: wrong credentials (401, the edge's
 * body), a search without restriction, an unknown field or an unreadable
 * date (400, `errorMessages`), the removed offset search (410), an unknown
 * or missing field in a body (400, `errorMessage`), an experimental endpoint
 * without its opt-in header, and a customer's internal comment. Lists page
 * by `start`/`limit` with `isLastPage`; the search by `nextPageToken`, which
 * belongs to its query; a fixed-window limit answers 429 with Retry-After.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startJsm, type JsmCounterpart } from '../../support/jira-service-management/jsm-counterpart.ts';
import type { JsmUser } from '../../support/jira-service-management/jsm-store.ts';

let jsm: JsmCounterpart;
afterEach(() => jsm.close());

async function call(who: JsmUser | { email: string; apiToken: string }, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${jsm.url}${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${who.email}:${who.apiToken}`).toString('base64')}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}
const jql = (q: string, more = '') => `/rest/api/3/search/jql?jql=${encodeURIComponent(q)}&fields=updated${more}`;

describe('the Jira Cloud counterpart', () => {
  it('refuses wrong credentials with the edge’s 401 body', async () => {
    jsm = await startJsm();
    expect(await call({ email: jsm.gateway.email, apiToken: 'wrong' }, 'GET', '/rest/api/3/myself')).toMatchObject({ status: 401, body: { message: 'Client must be authenticated to access this resource.', 'status-code': 401 } });
  });

  it('refuses JQL as Jira does, and the removed offset search with 410', async () => {
    jsm = await startJsm();
    const g = jsm.gateway;
    expect(await call(g, 'GET', jql('ORDER BY updated ASC'))).toMatchObject({ status: 400, body: { errorMessages: ['Unbounded JQL queries are not allowed here. Please add a search restriction to your query.'] } });
    expect(await call(g, 'GET', jql('project = HELP AND upd >= -5m'))).toMatchObject({ status: 400, body: { errorMessages: [expect.stringContaining("Field 'upd' does not exist")] } });
    expect(await call(g, 'GET', jql('project = HELP AND updated >= "2026-11-29T10:00:00Z"'))).toMatchObject({ status: 400, body: { errorMessages: [expect.stringContaining("Date value '2026-11-29T10:00:00Z' for field 'updated' is invalid")] } });
    expect(await call(g, 'GET', jql('project = NOPE'))).toMatchObject({ status: 400, body: { errorMessages: ["The value 'NOPE' does not exist for the field 'project'."] } });
    expect((await call(g, 'GET', '/rest/api/3/search?jql=project%20%3D%20HELP')).status).toBe(410);
  });

  it('pages the search with a token that belongs to its query, and lists with start and limit', async () => {
    jsm = await startJsm();
    for (let i = 0; i < 3; i++) await jsm.openRequest(jsm.customer, { summary: `S${i}`, description: 'x' });
    const q = 'project = HELP ORDER BY updated ASC';
    const first = await call(jsm.gateway, 'GET', jql(q, '&maxResults=2'));
    expect([first.body.issues.length, first.body.isLast, typeof first.body.nextPageToken]).toEqual([2, false, 'string']);
    const last = await call(jsm.gateway, 'GET', jql(q, `&maxResults=2&nextPageToken=${first.body.nextPageToken}`));
    expect([last.body.issues.length, last.body.isLast, last.body.nextPageToken]).toEqual([1, true, undefined]);
    expect((await call(jsm.gateway, 'GET', jql('project = HELP', `&nextPageToken=${first.body.nextPageToken}`))).status).toBe(400);
    const id = (await jsm.openRequest(jsm.customer, { summary: 'Talk', description: 'x' })).id;
    for (let i = 0; i < 3; i++) await jsm.comment(jsm.customer, id, `c${i}`);
    const page = await call(jsm.gateway, 'GET', `/rest/servicedeskapi/request/${id}/comment?start=1&limit=1`);
    expect([page.body.start, page.body.size, page.body.isLastPage, page.body.values[0].body]).toEqual([1, 1, false, 'c1']);
  });

  it('refuses unknown and missing fields, a customer’s internal comment, and an experimental call without opting in', async () => {
    jsm = await startJsm();
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'Rules', description: 'x' });
    const path = `/rest/servicedeskapi/request/${id}/comment`;
    expect(await call(jsm.agent, 'POST', path, { body: 'x', public: true, visibility: 'all' })).toMatchObject({ status: 400, body: { errorMessage: expect.stringContaining('Unrecognized field "visibility"') } });
    expect(await call(jsm.agent, 'POST', path, { body: 'x' })).toMatchObject({ status: 400, body: { errorMessage: expect.stringContaining('"public"') } });
    expect((await call(jsm.customer, 'POST', path, { body: 'x', public: false })).status).toBe(400);
    const comment = (await call(jsm.agent, 'POST', path, { body: 'y', public: true })).body.id;
    expect((await call(jsm.agent, 'GET', `${path}/${comment}/attachment`)).status).toBe(412);
    expect((await call(jsm.agent, 'GET', `${path}/${comment}/attachment`, undefined, { 'x-experimentalapi': 'opt-in' })).status).toBe(200);
  });

  it('limits an account to its window: 429 with Retry-After and X-RateLimit headers, the same again when asked early', async () => {
    jsm = await startJsm();
    jsm.limitGateway({ requests: 2, windowMs: 10_000 });
    expect((await call(jsm.gateway, 'GET', '/rest/api/3/myself')).status).toBe(200);
    expect((await call(jsm.gateway, 'GET', '/rest/api/3/myself')).status).toBe(200);
    const limited = await call(jsm.gateway, 'GET', '/rest/api/3/myself');
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('x-ratelimit-remaining'), limited.headers.get('ratelimit-reason')]).toEqual([429, '10', '0', 'jira-quota-based']);
    expect((await call(jsm.gateway, 'GET', '/rest/api/3/myself')).status).toBe(429);
    expect(jsm.server.gate.stats).toEqual({ limited: 2, early: 1 });
    expect((await call(jsm.agent, 'GET', '/rest/api/3/myself')).status).toBe(200);
  });
});
