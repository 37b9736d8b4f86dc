/**
 * Interactions of the builder (spec 02) over real HTTP: create from the
 * default template (with the default theme), the v2 list and single shapes,
 * the legacy camelCase read and full-object update with its `tag` guard,
 * copy, move within the organization, delete; and the documented errors.
 */
import { describe, expect, it } from 'vitest';
import {
  DefaultTemplate,
  Interaction,
  InteractionList,
  LegacyInteraction,
} from '../../src/platform/schemas/builder-interactions.ts';
import {
  advance,
  createCollection,
  createInteraction,
  foreignAuthorization,
  legacyPath,
  v2Path,
} from './builder-support.ts';
import { startTestSandbox } from './support.ts';

describe('interactions', () => {
  it('creates from the default template, making a default theme once per collection', async () => {
    const sb = await startTestSandbox();
    const template = DefaultTemplate.parse((await sb.call('GET', '/api/templates/default')).body);
    expect(template.project).toBeTypeOf('object');
    const collection = await createCollection(sb);

    const first = Interaction.parse(await createInteraction(sb, collection.id, { name: 'Newsletter' }));
    expect(first).toMatchObject({
      name: 'Newsletter',
      collection_id: collection.id,
      organization_id: sb.organizationId,
      author_company_id: sb.organizationId,
      published_at: null,
      published_name: null,
      draft_data: template.project,
      draft_data_version: 1,
      published_data_version: 0,
      editor_canvas_size_type: template.editorCanvasSizeType,
      flow_mode: null,
    });
    const second = await createInteraction(sb, collection.id, { name: 'Survey' });
    expect(second.theme_id).toBe(first.theme_id);

    const other = await createCollection(sb, { name: 'Other' });
    const third = await createInteraction(sb, other.id, { themeId: first.theme_id });
    expect(third.theme_id).toBe(first.theme_id);
    const fourth = await createInteraction(sb, other.id);
    expect(fourth.theme_id).not.toBe(first.theme_id);
  });

  it('refuses a create with missing or bad fields, an unknown collection or theme (400 naming the field), and no token (401)', async () => {
    const sb = await startTestSandbox();
    const collection = await createCollection(sb);
    const missing = await sb.call('POST', '/api/interactions/', { name: 'x' });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['editorCanvasSizeType', 'jsonVersion', 'project', 'templateName', 'workspaceUid']);

    const template = (await sb.call('GET', '/api/templates/default')).body;
    const bad = await sb.call('POST', '/api/interactions/', { ...template, workspaceUid: collection.id, editorCanvasSizeType: 'tv' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['editorCanvasSizeType']);
    const noCollection = await sb.call('POST', '/api/interactions/', { ...template, workspaceUid: 999 });
    expect(noCollection.body).toEqual({ detail: 'Invalid payload.', errors: { workspaceUid: ['Collection not found.'] } });
    const noTheme = await sb.call('POST', '/api/interactions/', { ...template, workspaceUid: collection.id, themeId: 999 });
    expect(noTheme.body.errors).toEqual({ themeId: ['Theme not found.'] });
    expect((await sb.call('POST', '/api/interactions/', { ...template, workspaceUid: collection.id }, { authorization: null })).status).toBe(401);
    expect((await sb.call('GET', '/api/templates/default', undefined, { authorization: null })).status).toBe(401);
  });

  it('lists in list shape, filtered by collection_id and sorted by ordering', async () => {
    const sb = await startTestSandbox();
    const a = await createCollection(sb, { name: 'A' });
    const b = await createCollection(sb, { name: 'B' });
    await createInteraction(sb, a.id, { name: 'banana' });
    await advance(sb);
    await createInteraction(sb, a.id, { name: 'Apple' });
    await advance(sb);
    await createInteraction(sb, b.id, { name: 'cherry' });

    const all = await sb.call('GET', v2Path(sb));
    expect(all.status).toBe(200);
    const list = InteractionList.parse(all.body);
    expect(list.map((i) => i.name)).toEqual(['banana', 'Apple', 'cherry']);
    expect(list[0]).not.toHaveProperty('draft_data');

    const names = async (query: string) =>
      ((await sb.call('GET', `${v2Path(sb)}?${query}`)).body as { name: string }[]).map((i) => i.name);
    expect(await names(`collection_id=${a.id}`)).toEqual(['banana', 'Apple']);
    expect(await names('ordering=name')).toEqual(['Apple', 'banana', 'cherry']);
    expect(await names('ordering=-name')).toEqual(['cherry', 'banana', 'Apple']);
    expect(await names('ordering=-created_at')).toEqual(['cherry', 'Apple', 'banana']);
    expect(await names(`collection_id=${b.id}&ordering=updated_at`)).toEqual(['cherry']);

    const badOrdering = await sb.call('GET', `${v2Path(sb)}?ordering=size`);
    expect(badOrdering.status).toBe(400);
    expect(Object.keys(badOrdering.body.errors)).toEqual(['ordering']);
    expect((await sb.call('GET', `${v2Path(sb)}?collection_id=x`)).body.errors).toHaveProperty('collection_id');
  });

  it('updated_at ordering follows the latest change', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const first = await createInteraction(sb, c.id, { name: 'first' });
    await advance(sb);
    await createInteraction(sb, c.id, { name: 'second' });
    await advance(sb);
    const read = (await sb.call('GET', legacyPath(first.id))).body;
    await sb.call('POST', legacyPath(first.id), { ...read, notes: 'touched' });
    const order = (await sb.call('GET', `${v2Path(sb)}?ordering=-updated_at`)).body.map((i: { name: string }) => i.name);
    expect(order).toEqual(['first', 'second']);
  });

  it('reads one interaction in the v2 single shape and the legacy shape, by UUID or integer ID', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const created = await createInteraction(sb, c.id, { name: 'Quiz' });
    const v2 = await sb.call('GET', v2Path(sb, created.id));
    expect(Interaction.parse(v2.body)).toEqual(created);

    const legacy = LegacyInteraction.parse((await sb.call('GET', legacyPath(created.id))).body);
    expect(legacy).toMatchObject({
      uid: created.legacy_id,
      interactionUuid: created.id,
      workspaceUid: c.id,
      organizationUid: sb.organizationId,
      isPublished: false,
      publishedDate: null,
      tag: created.updated_at,
      updatedDate: created.updated_at,
    });
    expect((await sb.call('GET', legacyPath(created.legacy_id))).body).toEqual(legacy);
    expect((await sb.call('GET', legacyPath('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    expect((await sb.call('GET', v2Path(sb, 'nope'))).status).toBe(404);
  });

  it('updates with the complete object as read; a stale tag is refused (409) and changes nothing', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const created = await createInteraction(sb, c.id);
    const read = (await sb.call('GET', legacyPath(created.id))).body;
    await advance(sb);

    const saved = await sb.call('POST', legacyPath(created.id), { ...read, name: 'Renamed', project: { views: [] } });
    expect(saved.status).toBe(200);
    const after = LegacyInteraction.parse(saved.body);
    expect(after).toMatchObject({ name: 'Renamed', project: { views: [] } });
    expect(after.tag).not.toBe(read.tag);
    expect((await sb.call('GET', v2Path(sb, created.id))).body.draft_data_version).toBe(2);

    // A second writer still holding the first read loses.
    const stale = await sb.call('POST', legacyPath(created.id), { ...read, name: 'Overwrite' });
    expect(stale.status).toBe(409);
    expect(Object.keys(stale.body.errors)).toEqual(['tag']);
    expect((await sb.call('GET', legacyPath(created.id))).body.name).toBe('Renamed');
  });

  it('an update may not change read-only fields, nor leave out fields (400 naming them)', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const created = await createInteraction(sb, c.id);
    const read = (await sb.call('GET', legacyPath(created.id))).body;
    const readOnly = await sb.call('POST', legacyPath(created.id), { ...read, isPublished: true, uid: 77 });
    expect(readOnly.status).toBe(400);
    expect(Object.keys(readOnly.body.errors).sort()).toEqual(['isPublished', 'uid']);
    const { notes: _notes, ...partial } = read;
    const missing = await sb.call('POST', legacyPath(created.id), partial);
    expect(missing.body.errors).toEqual({ notes: ['This field is required.'] });
    const otherTheme = await sb.call('POST', legacyPath(created.id), { ...read, themeId: 999 });
    expect(otherTheme.body.errors).toEqual({ themeId: ['Theme not found.'] });
  });

  it('an update with a new workspaceUid moves the interaction (same rules as move)', async () => {
    const sb = await startTestSandbox();
    const a = await createCollection(sb, { name: 'A' });
    const b = await createCollection(sb, { name: 'B' });
    const created = await createInteraction(sb, a.id);
    const read = (await sb.call('GET', legacyPath(created.id))).body;
    const moved = await sb.call('POST', legacyPath(created.id), { ...read, workspaceUid: b.id });
    expect(moved.body.workspaceUid).toBe(b.id);
    expect((await sb.call('GET', `${v2Path(sb)}?collection_id=${b.id}`)).body.map((i: { id: string }) => i.id)).toEqual([created.id]);
    const nowhere = await sb.call('POST', legacyPath(created.id), { ...moved.body, workspaceUid: 999 });
    expect(nowhere.body.errors).toEqual({ workspaceUid: ['Collection not found.'] });
  });

  it('a partner organization reads the interactions of a shared collection, and changes them only when read-write', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const partner = await foreignAuthorization(sb);
    const readOnly = await createCollection(sb, { name: 'Read only', sharedWithPartnerOrganizationUid: info.foreign_organization_id });
    const readWrite = await createCollection(sb, {
      name: 'Read write',
      sharedWithPartnerOrganizationUid: info.foreign_organization_id,
      sharedWithPartnerReadwrite: true,
    });
    const looked = await createInteraction(sb, readOnly.id, { name: 'Look only' });
    const edited = await createInteraction(sb, readWrite.id, { name: 'Edit me' });

    const seen = await sb.call('GET', legacyPath(looked.id), undefined, { authorization: partner });
    expect(seen.status).toBe(200);
    expect((await sb.call('POST', legacyPath(looked.id), seen.body, { authorization: partner })).status).toBe(404);
    expect((await sb.call('POST', legacyPath(looked.id, 'publish'), undefined, { authorization: partner })).status).toBe(404);

    const read = (await sb.call('GET', legacyPath(edited.id), undefined, { authorization: partner })).body;
    const saved = await sb.call('POST', legacyPath(edited.id), { ...read, notes: 'by the partner' }, { authorization: partner });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ notes: 'by the partner', updatedUserOrganizationUid: info.foreign_organization_id });
    const theirs = await sb.call('GET', `/api/v2/orgs/${info.foreign_organization_id}/interactions`, undefined, { authorization: partner });
    expect(theirs.body.map((i: { name: string }) => i.name)).toEqual(['Look only', 'Edit me']);
  });

  it('copies into the same or another collection; forceUniqueName numbers a duplicate name', async () => {
    const sb = await startTestSandbox();
    const a = await createCollection(sb, { name: 'A' });
    const b = await createCollection(sb, { name: 'B' });
    const source = await createInteraction(sb, a.id, { name: 'Promo' });
    await sb.call('POST', legacyPath(source.id, 'publish'));

    const plain = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, {});
    expect(plain.status).toBe(201);
    const copy = Interaction.parse(plain.body);
    expect(copy).toMatchObject({ name: 'Promo', collection_id: a.id, published_at: null, draft_data: (await sb.call('GET', v2Path(sb, source.id))).body.draft_data });
    expect(copy.id).not.toBe(source.id);

    const unique = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, { forceUniqueName: true });
    expect(unique.body.name).toBe('Promo (1)');
    const again = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, { forceUniqueName: true });
    expect(again.body.name).toBe('Promo (2)');
    const elsewhere = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, { forceUniqueName: true, collection_id: b.id });
    expect(elsewhere.body).toMatchObject({ name: 'Promo', collection_id: b.id });

    const badFlag = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, { forceUniqueName: 'yes' });
    expect(Object.keys(badFlag.body.errors)).toEqual(['forceUniqueName']);
    const noTarget = await sb.call('POST', `${v2Path(sb, source.id)}/copy`, { collection_id: 999 });
    expect(noTarget.body.errors).toEqual({ collection_id: ['Collection not found.'] });
  });

  it('moves within the organization only', async () => {
    const sb = await startTestSandbox();
    const a = await createCollection(sb, { name: 'A' });
    const b = await createCollection(sb, { name: 'B' });
    const interaction = await createInteraction(sb, a.id);
    const moved = await sb.call('POST', `${v2Path(sb, interaction.id)}/move`, { collection_id: b.id });
    expect(moved.status).toBe(200);
    expect(Interaction.parse(moved.body).collection_id).toBe(b.id);
    expect((await sb.call('GET', legacyPath(interaction.id))).body.workspaceUid).toBe(b.id);
    expect((await sb.call('POST', `${v2Path(sb, interaction.id)}/move`, { collection_id: b.id })).body.collection_id).toBe(b.id);

    // A collection of another organization, even one shared read-write with us, is not a move target.
    const info = await sb.info();
    const foreign = await foreignAuthorization(sb);
    const theirs = await sb.call('POST', '/api/v1/collections/', {
      name: 'Theirs',
      sharedWithPartnerOrganizationUid: sb.organizationId,
      sharedWithPartnerReadwrite: true,
    }, { authorization: foreign });
    expect(theirs.body.organizationUid).toBe(info.foreign_organization_id);
    const across = await sb.call('POST', `${v2Path(sb, interaction.id)}/move`, { collection_id: theirs.body.id });
    expect(across.status).toBe(400);
    expect(Object.keys(across.body.errors)).toEqual(['collection_id']);
    const missing = await sb.call('POST', `${v2Path(sb, interaction.id)}/move`, {});
    expect(missing.body.errors).toEqual({ collection_id: ['This field is required.'] });
  });

  it('deletes (200); the interaction is gone from every shape', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const interaction = await createInteraction(sb, c.id);
    const del = await sb.call('DELETE', legacyPath(interaction.id));
    expect(del.status).toBe(200);
    expect((await sb.call('GET', legacyPath(interaction.id))).status).toBe(404);
    expect((await sb.call('GET', v2Path(sb, interaction.id))).status).toBe(404);
    expect((await sb.call('GET', v2Path(sb))).body).toEqual([]);
    expect((await sb.call('DELETE', legacyPath(interaction.id))).status).toBe(404);
  });

  it('keeps organizations apart: another organization gets 404, and the v2 path must be the caller’s organization (403)', async () => {
    const sb = await startTestSandbox();
    const c = await createCollection(sb);
    const interaction = await createInteraction(sb, c.id);
    const foreign = await foreignAuthorization(sb);
    const info = await sb.info();
    expect((await sb.call('GET', legacyPath(interaction.id), undefined, { authorization: foreign })).status).toBe(404);
    expect((await sb.call('DELETE', legacyPath(interaction.id), undefined, { authorization: foreign })).status).toBe(404);
    expect((await sb.call('GET', v2Path(sb), undefined, { authorization: foreign })).status).toBe(403);
    const theirList = await sb.call('GET', `/api/v2/orgs/${info.foreign_organization_id}/interactions`, undefined, { authorization: foreign });
    expect(theirList.body).toEqual([]);
    expect((await sb.call('GET', v2Path(sb), undefined, { authorization: null })).status).toBe(401);
  });
});
