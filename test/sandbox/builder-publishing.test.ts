/**
 * Publish, unpublish and revert of interactions: every interaction row of
 * spec 02's state table, over real HTTP.
 *
 *   unpublished --publish (no tag / matching tag)--> published
 *   any         --publish (stale tag)-------------> unchanged, body null
 *   published   --unpublish (no tag / matching)---> unpublished
 *   published   --unpublish (stale tag)-----------> unchanged, body null
 *   published with later draft changes --revert--> draft equals the latest published version
 *   never published --revert--> refused
 */
import { describe, expect, it } from 'vitest';
import { Interaction } from '../../src/platform/schemas/builder-interactions.ts';
import { advance, createCollection, createInteraction, legacyPath, v2Path } from './builder-support.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

async function fresh(sb: TestSandbox) {
  const collection = await createCollection(sb);
  const interaction = await createInteraction(sb, collection.id, { name: 'Offer', project: { version: 'one' } });
  const read = (await sb.call('GET', legacyPath(interaction.id))).body;
  return { id: interaction.id, tag: read.tag as string, read };
}

const withTag = (path: string, tag: string) => `${path}?tag=${encodeURIComponent(tag)}`;
const legacy = (sb: TestSandbox, id: string) => sb.call('GET', legacyPath(id));

/** Saves a change of the draft and returns the new tag. */
async function edit(sb: TestSandbox, id: string, change: Record<string, unknown>): Promise<string> {
  await advance(sb);
  const read = (await legacy(sb, id)).body;
  const res = await sb.call('POST', legacyPath(id), { ...read, ...change });
  expect(res.status, res.text).toBe(200);
  return res.body.tag;
}

describe('publishing', () => {
  it('publish without a tag: unpublished → published, answers the interaction', async () => {
    const sb = await startTestSandbox();
    const { id } = await fresh(sb);
    const res = await sb.call('POST', legacyPath(id, 'publish'));
    expect(res.status).toBe(200);
    const published = Interaction.parse(res.body);
    expect(published).toMatchObject({ published_name: 'Offer', published_data_version: 1 });
    expect(published.published_at).not.toBeNull();
    expect((await legacy(sb, id)).body).toMatchObject({ isPublished: true, publishedDate: published.published_at });
  });

  it('publish with the matching tag (the updatedDate, in any ISO 8601 writing) publishes', async () => {
    const sb = await startTestSandbox();
    const { id, tag } = await fresh(sb);
    const shifted = new Date(Date.parse(tag)).toISOString().replace('Z', '+00:00');
    const res = await sb.call('POST', withTag(legacyPath(id, 'publish'), shifted));
    expect(res.status).toBe(200);
    expect(res.body.published_name).toBe('Offer');
    expect((await legacy(sb, id)).body.isPublished).toBe(true);
  });

  it('publish with a stale tag answers null and changes nothing (unpublished and published alike)', async () => {
    const sb = await startTestSandbox();
    const { id, tag } = await fresh(sb);
    const newTag = await edit(sb, id, { name: 'Offer v2' });

    const stale = await sb.call('POST', withTag(legacyPath(id, 'publish'), tag));
    expect(stale.status).toBe(200);
    expect(stale.text).toBe('null');
    expect(stale.headers['content-type']).toMatch(/application\/json/);
    expect((await legacy(sb, id)).body).toMatchObject({ isPublished: false, publishedDate: null });

    await sb.call('POST', withTag(legacyPath(id, 'publish'), newTag));
    const publishedAt = (await legacy(sb, id)).body.publishedDate;
    await edit(sb, id, { name: 'Offer v3' });
    await advance(sb);
    expect((await sb.call('POST', withTag(legacyPath(id, 'publish'), newTag))).body).toBeNull();
    const after = (await sb.call('GET', v2Path(sb, id))).body;
    expect(after).toMatchObject({ published_name: 'Offer v2', published_at: publishedAt });
  });

  it('publishing is not an edit: the tag stays valid for the unpublish that follows', async () => {
    const sb = await startTestSandbox();
    const { id, tag } = await fresh(sb);
    await sb.call('POST', withTag(legacyPath(id, 'publish'), tag));
    const res = await sb.call('POST', withTag(legacyPath(id, 'unpublish'), tag));
    expect(res.status).toBe(200);
    expect(Interaction.parse(res.body)).toMatchObject({ published_name: null });
    expect(res.body.published_at).not.toBeNull();
    expect((await legacy(sb, id)).body.isPublished).toBe(false);
  });

  it('unpublish without a tag: published → unpublished; publish time kept', async () => {
    const sb = await startTestSandbox();
    const { id } = await fresh(sb);
    const publishedAt = (await sb.call('POST', legacyPath(id, 'publish'))).body.published_at;
    const res = await sb.call('POST', legacyPath(id, 'unpublish'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ published_at: publishedAt, published_name: null });
    expect((await legacy(sb, id)).body).toMatchObject({ isPublished: false, publishedDate: publishedAt });
  });

  it('unpublish with a stale tag answers null and stays published', async () => {
    const sb = await startTestSandbox();
    const { id, tag } = await fresh(sb);
    await sb.call('POST', legacyPath(id, 'publish'));
    await edit(sb, id, { notes: 'changed after publishing' });
    const res = await sb.call('POST', withTag(legacyPath(id, 'unpublish'), tag));
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
    expect((await legacy(sb, id)).body.isPublished).toBe(true);
  });

  it('unpublish of an unpublished interaction is refused (409); a bad tag is 400', async () => {
    const sb = await startTestSandbox();
    const { id } = await fresh(sb);
    const res = await sb.call('POST', legacyPath(id, 'unpublish'));
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/not published/);
    const bad = await sb.call('POST', withTag(legacyPath(id, 'publish'), 'yesterday'));
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['tag']);
    expect((await sb.call('POST', legacyPath('00000000-0000-4000-8000-000000000000', 'publish'))).status).toBe(404);
  });

  it('revert: a published interaction with later draft changes gets the published draft back', async () => {
    const sb = await startTestSandbox();
    const { id } = await fresh(sb);
    await sb.call('POST', legacyPath(id, 'publish'));
    await edit(sb, id, { name: 'Offer draft', project: { version: 'two' } });
    const before = (await sb.call('GET', v2Path(sb, id))).body;
    expect(before).toMatchObject({ draft_data: { version: 'two' }, draft_data_version: 2, published_data_version: 1 });

    await advance(sb);
    const res = await sb.call('POST', legacyPath(id, 'revert'), {});
    expect(res.status).toBe(200);
    expect(Interaction.parse(res.body)).toMatchObject({
      name: 'Offer',
      draft_data: { version: 'one' },
      draft_data_version: 1,
      published_data_version: 1,
    });
    // A revert changes the draft, so it moves the tag on.
    expect(res.body.updated_at).not.toBe(before.updated_at);
    expect((await legacy(sb, id)).body.project).toEqual({ version: 'one' });
  });

  it('revert still works after an unpublish (the latest published version is kept)', async () => {
    const sb = await startTestSandbox();
    const { id } = await fresh(sb);
    await sb.call('POST', legacyPath(id, 'publish'));
    await sb.call('POST', legacyPath(id, 'unpublish'));
    await edit(sb, id, { project: { version: 'three' } });
    const res = await sb.call('POST', legacyPath(id, 'revert'), {});
    expect(res.body.draft_data).toEqual({ version: 'one' });
  });

  it('revert of a never-published interaction is refused (409) and changes nothing; a non-empty body is 400', async () => {
    const sb = await startTestSandbox();
    const { id, read } = await fresh(sb);
    const res = await sb.call('POST', legacyPath(id, 'revert'), {});
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/never been published/);
    expect((await legacy(sb, id)).body).toEqual(read);
    await sb.call('POST', legacyPath(id, 'publish'));
    const extra = await sb.call('POST', legacyPath(id, 'revert'), { to: 'v1' });
    expect(extra.status).toBe(400);
    expect(extra.body.errors).toEqual({ to: ['Unknown field.'] });
  });
});
