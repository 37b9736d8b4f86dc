/**
 * The avatar upload of spec 01 against a body that is not a readable
 * multipart/form-data request, over real HTTP: the endpoint lists 400 (no
 * 415, no 500) and the errors section reads 400 as "wrong payload format",
 * so every such body is 400 with the validation body naming the expected
 * multipart/form-data and the form field; access is still checked first and
 * nothing is stored.
 */
import { describe, expect, it } from 'vitest';
import { startSpec01Sandbox, type Spec01Sandbox } from './spec01-support.ts';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

/** A raw POST: `contentType` null sends the bytes without a Content-Type header. */
async function rawPost(sb: Spec01Sandbox, path: string, contentType: string | null, body: Uint8Array | string, authorization = `Token ${sb.token}`) {
  const headers: Record<string, string> = { authorization };
  if (contentType !== null) headers['content-type'] = contentType;
  const res = await fetch(`${sb.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : new Blob([body]) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const TRUNCATED_PART = '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc';

/** [what, content type, body] of requests that are not a readable multipart upload. */
const WRONG_FORMATS: [string, string | null, Uint8Array | string][] = [
  ['raw image bytes', 'image/png', PNG],
  ['octet stream', 'application/octet-stream', PNG],
  ['no content type', null, PNG],
  ['JSON', 'application/json', JSON.stringify({ url: 'http://example.test/a.png' })],
  ['plain text', 'text/plain', 'a picture'],
  ['URL-encoded form', 'application/x-www-form-urlencoded', 'file=a.png'],
  ['multipart without boundary', 'multipart/form-data', 'garbage'],
  ['multipart cut short', 'multipart/form-data; boundary=xyz', TRUNCATED_PART],
];

describe('avatar upload with a body that is not multipart/form-data', () => {
  it('400 with {detail, errors.file} naming multipart/form-data and the field, on both paths; no avatar is stored', async () => {
    const sb = await startSpec01Sandbox();
    for (const path of [`/api/v5/users/${sb.agentId}/avatar`, sb.org(`/users/${sb.agentId}/avatar`)]) {
      for (const [what, contentType, body] of WRONG_FORMATS) {
        const res = await rawPost(sb, path, contentType, body);
        expect(res.status, `${what} on ${path}`).toBe(400);
        expect(res.body.detail, what).toBe('Invalid payload.');
        expect(Object.keys(res.body.errors), what).toEqual(['file']);
        expect(res.body.errors.file[0], what).toContain('multipart/form-data');
        expect(res.body.errors.file[0], what).toContain('"file"');
      }
      expect((await sb.call('GET', path)).status).toBe(404);
    }
  });

  it('checks credentials and access before the body: 401 without a token, 403 for a colleague, 404 for an unknown user', async () => {
    const sb = await startSpec01Sandbox();
    const colleague = await sb.addUser({}, { permissions: { users: false } });
    const own = `/api/v5/users/${sb.agentId}/avatar`;
    expect((await rawPost(sb, own, 'image/png', PNG, 'Token not-a-token')).status).toBe(401);
    expect((await rawPost(sb, own, 'image/png', PNG, colleague.auth)).status).toBe(403);
    expect((await rawPost(sb, sb.org(`/users/${crypto.randomUUID()}/avatar`), 'image/png', PNG)).status).toBe(404);
  });

  it('a multipart upload right after a refused raw one is stored (201) and served', async () => {
    const sb = await startSpec01Sandbox();
    const path = `/api/v5/users/${sb.agentId}/avatar`;
    expect((await rawPost(sb, path, 'image/png', PNG)).status).toBe(400);
    const form = new FormData();
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'me.png');
    const res = await fetch(`${sb.url}${path}`, { method: 'POST', body: form, headers: { authorization: `Token ${sb.token}` } });
    expect(res.status).toBe(201);
    const avatar = (await res.json()) as { url: string };
    expect(new Uint8Array(await (await fetch(avatar.url)).arrayBuffer())).toEqual(PNG);
  });
});
