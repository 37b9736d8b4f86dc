/**
 * Form data of interactions (spec 02) over real HTTP: submissions seeded
 * through the control API, then listed, counted and deleted with every
 * documented filter (url, from, to, jsonEq, jsonLike, orderDesc), and the
 * errors of bad filters and other organizations.
 */
import { describe, expect, it } from 'vitest';
import { FormSubmission, FormSubmissionCount } from '../../src/platform/schemas/form-submissions.ts';
import { createCollection, createInteraction, foreignAuthorization, seedSubmissions } from './builder-support.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

const INTERACTION = '6f1c1d9e-6a59-4b8e-9d4a-2f0c3c7a1b11';
const OTHER_INTERACTION = '0b7e2f44-5c1a-4b39-8e7d-9a2d6f3e4c22';

const forms = (sb: TestSandbox) => `/api/orgs/${sb.organizationId}/forms`;

/** Three submissions of INTERACTION (one per day) and one of another interaction. */
async function seedThree(sb: TestSandbox) {
  return seedSubmissions(sb, [
    {
      interactionUuid: INTERACTION,
      timestamp: '2026-11-01T10:00:00Z',
      url: 'https://shop.example.com/a',
      formdata: { email: 'Ann@Example.com', newsletter: true, size: 'M' },
      clickHistory: ['open', 'next'],
    },
    {
      interactionUuid: INTERACTION,
      timestamp: '2026-11-02T10:00:00Z',
      url: 'https://shop.example.com/b',
      formdata: { email: 'bob@example.org', newsletter: false },
    },
    {
      interactionUuid: INTERACTION,
      timestamp: '2026-11-03T10:00:00Z',
      url: 'https://shop.example.com/a',
      formdata: { email: 'carol@example.com', newsletter: 'true', color: 'red' },
    },
    { interactionUuid: OTHER_INTERACTION, timestamp: '2026-11-02T12:00:00Z', formdata: { email: 'ann@example.com' } },
  ]);
}

async function emails(sb: TestSandbox, query: Record<string, string>): Promise<string[]> {
  const res = await sb.call('GET', `${forms(sb)}/data?${new URLSearchParams({ interactionUuid: INTERACTION, ...query })}`);
  expect(res.status, res.text).toBe(200);
  return (res.body as { formdata: { email: string } }[]).map((s) => s.formdata.email);
}

async function count(sb: TestSandbox, query: Record<string, string>): Promise<number> {
  const res = await sb.call('GET', `${forms(sb)}/count?${new URLSearchParams({ interactionUuid: INTERACTION, ...query })}`);
  expect(res.status, res.text).toBe(200);
  return FormSubmissionCount.parse(res.body).count;
}

describe('form data', () => {
  it('lists the submissions of one interaction, oldest first, in the documented shape', async () => {
    const sb = await startTestSandbox();
    await seedThree(sb);
    const res = await sb.call('GET', `${forms(sb)}/data?interactionUuid=${INTERACTION}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    const first = FormSubmission.parse(res.body[0]);
    expect(first).toMatchObject({
      timestamp: '2026-11-01T10:00:00.000Z',
      roomId: '',
      url: 'https://shop.example.com/a',
      formdata: { email: 'Ann@Example.com', newsletter: true, size: 'M' },
      clickHistory: ['open', 'next'],
      triggerName: 'submit',
    });
    expect(await emails(sb, { orderDesc: 'true' })).toEqual(['carol@example.com', 'bob@example.org', 'Ann@Example.com']);
    expect(await emails(sb, { orderDesc: 'false' })).toEqual(['Ann@Example.com', 'bob@example.org', 'carol@example.com']);
    expect(await count(sb, {})).toBe(3);
  });

  it('filters by exact url and by inclusive from/to bounds', async () => {
    const sb = await startTestSandbox();
    await seedThree(sb);
    expect(await emails(sb, { url: 'https://shop.example.com/a' })).toEqual(['Ann@Example.com', 'carol@example.com']);
    expect(await emails(sb, { url: 'https://shop.example.com' })).toEqual([]);
    expect(await emails(sb, { from: '2026-11-02T10:00:00Z' })).toEqual(['bob@example.org', 'carol@example.com']);
    expect(await emails(sb, { to: '2026-11-02T10:00:00Z' })).toEqual(['Ann@Example.com', 'bob@example.org']);
    expect(await emails(sb, { from: '2026-11-01T13:00:00+02:00', to: '2026-11-02T23:59:59' })).toEqual(['bob@example.org']);
    expect(await count(sb, { url: 'https://shop.example.com/a', from: '2026-11-02T00:00:00Z' })).toBe(1);
  });

  it('jsonEq matches the given keys exactly, type included', async () => {
    const sb = await startTestSandbox();
    await seedThree(sb);
    expect(await emails(sb, { jsonEq: JSON.stringify({ newsletter: true }) })).toEqual(['Ann@Example.com']);
    expect(await emails(sb, { jsonEq: JSON.stringify({ newsletter: 'true' }) })).toEqual(['carol@example.com']);
    expect(await emails(sb, { jsonEq: JSON.stringify({ email: 'ann@example.com' }) })).toEqual([]);
    expect(await emails(sb, { jsonEq: JSON.stringify({ size: 'M', newsletter: true }) })).toEqual(['Ann@Example.com']);
    // A key the submission did not have never matches.
    expect(await emails(sb, { jsonEq: JSON.stringify({ color: 'red', size: 'M' }) })).toEqual([]);
    expect(await count(sb, { jsonEq: JSON.stringify({ newsletter: false }) })).toBe(1);
  });

  it('jsonLike matches a case-insensitive part of the given keys', async () => {
    const sb = await startTestSandbox();
    await seedThree(sb);
    expect(await emails(sb, { jsonLike: JSON.stringify({ email: 'EXAMPLE.COM' }) })).toEqual(['Ann@Example.com', 'carol@example.com']);
    expect(await emails(sb, { jsonLike: JSON.stringify({ newsletter: 'tru' }) })).toEqual(['Ann@Example.com', 'carol@example.com']);
    expect(await emails(sb, { jsonLike: JSON.stringify({ color: 'R' }) })).toEqual(['carol@example.com']);
    expect(
      await emails(sb, { jsonLike: JSON.stringify({ email: 'example' }), jsonEq: JSON.stringify({ newsletter: false }), orderDesc: 'true' }),
    ).toEqual(['bob@example.org']);
    expect(await count(sb, { jsonLike: JSON.stringify({ email: '@example.' }) })).toBe(3);
  });

  it('refuses bad filters with 400 naming the field', async () => {
    const sb = await startTestSandbox();
    const bad = async (path: string, query: string) => {
      const res = await sb.call('GET', `${forms(sb)}/${path}?${query}`);
      expect(res.status, res.text).toBe(400);
      return Object.keys(res.body.errors);
    };
    expect(await bad('data', '')).toEqual(['interactionUuid']);
    expect(await bad('data', 'interactionUuid=abc')).toEqual(['interactionUuid']);
    expect(await bad('data', `interactionUuid=${INTERACTION}&from=yesterday`)).toEqual(['from']);
    expect(await bad('data', `interactionUuid=${INTERACTION}&jsonEq=${encodeURIComponent('[1]')}`)).toEqual(['jsonEq']);
    expect(await bad('data', `interactionUuid=${INTERACTION}&jsonLike=nope`)).toEqual(['jsonLike']);
    expect(await bad('data', `interactionUuid=${INTERACTION}&orderDesc=maybe`)).toEqual(['orderDesc']);
    expect(await bad('data', `projectUid=${INTERACTION}&interactionUuid=${INTERACTION}`)).toEqual(['projectUid']);
    // orderDesc is for the list and the CSV only.
    expect(await bad('count', `interactionUuid=${INTERACTION}&orderDesc=true`)).toEqual(['orderDesc']);
  });

  it('deletes one submission (200); it is gone from list and count; unknown or foreign ones are 404', async () => {
    const sb = await startTestSandbox();
    const [first] = await seedThree(sb);
    const del = await sb.call('DELETE', `${forms(sb)}/data/${first!.id}`);
    expect(del.status).toBe(200);
    expect(await emails(sb, {})).toEqual(['bob@example.org', 'carol@example.com']);
    expect(await count(sb, {})).toBe(2);
    expect((await sb.call('DELETE', `${forms(sb)}/data/${first!.id}`)).status).toBe(404);
    expect((await sb.call('DELETE', `${forms(sb)}/data/abc`)).status).toBe(400);

    const info = await sb.info();
    const theirs = await sb.call('POST', '/_sandbox/submissions', {
      interactionUuid: INTERACTION,
      organization_id: info.foreign_organization_id,
      formdata: { email: 'x@example.com' },
    });
    expect((await sb.call('DELETE', `${forms(sb)}/data/${theirs.body.results[0].id}`)).status).toBe(404);
    expect(await count(sb, {})).toBe(2);
  });

  it('an organization sees only its own submissions; the path must be the caller’s organization', async () => {
    const sb = await startTestSandbox();
    await seedThree(sb);
    const info = await sb.info();
    const foreign = await foreignAuthorization(sb);
    const mine = `${forms(sb)}/data?interactionUuid=${INTERACTION}`;
    expect((await sb.call('GET', mine, undefined, { authorization: foreign })).status).toBe(403);
    expect((await sb.call('GET', mine, undefined, { authorization: null })).status).toBe(401);
    const theirs = await sb.call('GET', `/api/orgs/${info.foreign_organization_id}/forms/data?interactionUuid=${INTERACTION}`, undefined, {
      authorization: foreign,
    });
    expect(theirs.body).toEqual([]);
  });

  it('seeding takes the organization and project name from a known interaction, and refuses bad seeds', async () => {
    const sb = await startTestSandbox();
    const collection = await createCollection(sb);
    const interaction = await createInteraction(sb, collection.id, { name: 'Contact form' });
    const [seeded] = await seedSubmissions(sb, [{ interactionUuid: interaction.id, formdata: { email: 'a@b.c' } }]);
    expect(seeded).toMatchObject({ projectName: 'Contact form', organization_id: sb.organizationId, roomId: '' });
    const listed = await sb.call('GET', `${forms(sb)}/data?interactionUuid=${interaction.id}`);
    expect(listed.body.map((s: { id: number }) => s.id)).toEqual([seeded!.id]);

    const badValue = await sb.call('POST', '/_sandbox/submissions', { interactionUuid: INTERACTION, formdata: { age: 3 } });
    expect(badValue.status).toBe(400);
    expect(Object.keys(badValue.body.errors)).toEqual(['formdata.age']);
    const badOrg = await sb.call('POST', '/_sandbox/submissions', { submissions: [{ interactionUuid: INTERACTION, organization_id: 'nope' }] });
    expect(badOrg.body.errors).toEqual({ 'submissions.0.organization_id': ['Organization not found.'] });
  });
});
