/**
 * The CSV export of form data (spec 02) over real HTTP: the filters in a
 * JSON body plus the access token, one header row, every row with every
 * column and empty values where an input did not exist at submission time.
 * The answer is read with csv-parse, a standard CSV parser.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { foreignAuthorization, seedSubmissions } from './builder-support.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

const INTERACTION = '3d2b8a61-1f4e-4c5a-9b7d-6e8f0a1b2c33';

const csvPath = (sb: TestSandbox) => `/api/orgs/${sb.organizationId}/forms/csv`;

async function seed(sb: TestSandbox) {
  return seedSubmissions(sb, [
    {
      interactionUuid: INTERACTION,
      timestamp: '2026-11-01T09:00:00Z',
      url: 'https://shop.example.com/a',
      formdata: { email: 'ann@example.com', comment: 'Fine, "really"\nthanks' },
      clickHistory: ['open', 'next'],
      visitorId: 'v-ann',
    },
    {
      interactionUuid: INTERACTION,
      timestamp: '2026-11-02T09:00:00Z',
      url: 'https://shop.example.com/b',
      formdata: { email: 'bob@example.org', newsletter: true, url: 'https://bob.example.org' },
      visitorId: 'v-bob',
    },
  ]);
}

function rows(text: string): Record<string, string>[] {
  return parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
}

describe('form data CSV export', () => {
  it('answers CSV with a header row and every column on every row, empty where a field did not exist', async () => {
    const sb = await startTestSandbox();
    const [ann, bob] = await seed(sb);
    const raw = await fetch(`${sb.url}${csvPath(sb)}`, {
      method: 'POST',
      headers: { authorization: `Token ${sb.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: sb.token, interactionUuid: INTERACTION }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(raw.headers.get('content-disposition')).toBe(`attachment; filename="form-data-${INTERACTION}.csv"`);
    const text = await raw.text();
    const header = (parse(text) as string[][])[0];
    expect(header).toEqual([
      'id', 'timestamp', 'projectName', 'visitorId', 'roomId', 'url', 'triggerName', 'clickHistory',
      'email', 'comment', 'newsletter', 'formdata.url',
    ]);
    const parsed = rows(text);
    expect(parsed).toEqual([
      {
        id: String(ann!.id), timestamp: '2026-11-01T09:00:00.000Z', projectName: 'Sandbox interaction', visitorId: 'v-ann',
        roomId: '', url: 'https://shop.example.com/a', triggerName: 'submit', clickHistory: 'open > next',
        email: 'ann@example.com', comment: 'Fine, "really"\nthanks', newsletter: '', 'formdata.url': '',
      },
      {
        id: String(bob!.id), timestamp: '2026-11-02T09:00:00.000Z', projectName: 'Sandbox interaction', visitorId: 'v-bob',
        roomId: '', url: 'https://shop.example.com/b', triggerName: 'submit', clickHistory: '',
        email: 'bob@example.org', comment: '', newsletter: 'true', 'formdata.url': 'https://bob.example.org',
      },
    ]);
  });

  async function exportCsv(sb: TestSandbox, body: Record<string, unknown>, authorization = `Token ${sb.token}`) {
    const res = await fetch(`${sb.url}${csvPath(sb)}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ token: sb.token, interactionUuid: INTERACTION, ...body }),
    });
    return { status: res.status, text: await res.text() };
  }

  it('takes the list filters in the body: url, from, to, jsonEq/jsonLike as objects or JSON text, orderDesc', async () => {
    const sb = await startTestSandbox();
    await seed(sb);
    const emails = async (body: Record<string, unknown>) => {
      const res = await exportCsv(sb, body);
      expect(res.status, res.text).toBe(200);
      return rows(res.text).map((r) => r.email);
    };
    expect(await emails({ orderDesc: true })).toEqual(['bob@example.org', 'ann@example.com']);
    expect(await emails({ url: 'https://shop.example.com/a' })).toEqual(['ann@example.com']);
    expect(await emails({ from: '2026-11-01T12:00:00Z' })).toEqual(['bob@example.org']);
    expect(await emails({ to: '2026-11-01T12:00:00Z' })).toEqual(['ann@example.com']);
    expect(await emails({ jsonEq: { newsletter: true } })).toEqual(['bob@example.org']);
    expect(await emails({ jsonEq: JSON.stringify({ newsletter: true }) })).toEqual(['bob@example.org']);
    expect(await emails({ jsonLike: { comment: 'REALLY' } })).toEqual(['ann@example.com']);
  });

  it('an empty selection is the header row of the submission fields alone', async () => {
    const sb = await startTestSandbox();
    await seed(sb);
    const res = await exportCsv(sb, { url: 'https://nowhere.example.com' });
    expect(res.status).toBe(200);
    expect(parse(res.text)).toEqual([['id', 'timestamp', 'projectName', 'visitorId', 'roomId', 'url', 'triggerName', 'clickHistory']]);
  });

  it('needs the token in the body (400), a valid one (401) of the organization in the path (403)', async () => {
    const sb = await startTestSandbox();
    const missing = await fetch(`${sb.url}${csvPath(sb)}`, {
      method: 'POST',
      headers: { authorization: `Token ${sb.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ interactionUuid: INTERACTION }),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ detail: 'Invalid payload.', errors: { token: ['This field is required.'] } });

    expect((await exportCsv(sb, { token: 'not-a-token' })).status).toBe(401);
    const foreign = (await foreignAuthorization(sb)).replace('Token ', '');
    expect((await exportCsv(sb, { token: foreign })).status).toBe(403);
    expect((await exportCsv(sb, {}, 'Token nope')).status).toBe(401);
    const bad = await exportCsv(sb, { orderDesc: 'yes', projectUid: INTERACTION });
    expect(bad.status).toBe(400);
    expect(Object.keys(JSON.parse(bad.text).errors).sort()).toEqual(['orderDesc', 'projectUid']);
  });
});
