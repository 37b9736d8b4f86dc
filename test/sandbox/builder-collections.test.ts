/**
 * Collections of the builder (spec 02) over real HTTP: create, list, read,
 * update, delete; the delete refusal while a collection holds interactions
 * or themes (state table); the older /api/v1/groups paths; and who may see
 * or change a collection.
 */
import { describe, expect, it } from 'vitest';
import { Collection, CollectionList } from '../../src/platform/schemas/builder-collections.ts';
import { COLLECTIONS, createCollection, createInteraction, foreignAuthorization, legacyPath } from './builder-support.ts';
import { startTestSandbox } from './support.ts';

describe('collections', () => {
  it('creates with defaults, lists, reads and updates; the answers parse with the collection schema', async () => {
    const sb = await startTestSandbox();
    const created = Collection.parse(await createCollection(sb, { name: 'Spring' }));
    expect(created).toMatchObject({
      name: 'Spring',
      organizationUid: sb.organizationId,
      dataRetentionDays: null,
      dataDisposalEnabled: false,
      sharedWithPartnerOrganizationUid: null,
      sharedWithPartnerReadwrite: false,
      sharedWithSupport: false,
    });
    await createCollection(sb, { name: 'Autumn' });

    const list = CollectionList.parse((await sb.call('GET', COLLECTIONS)).body);
    expect(list.map((c) => c.name)).toEqual(['Spring', 'Autumn']);

    const updated = await sb.call('POST', `${COLLECTIONS}/${created.id}`, {
      name: 'Spring sale',
      dataDisposalEnabled: true,
      dataRetentionDays: 30,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.id, name: 'Spring sale', dataDisposalEnabled: true, dataRetentionDays: 30 });
    expect((await sb.call('GET', `${COLLECTIONS}/${created.id}`)).body).toEqual(updated.body);

    // Turning disposal off clears the retention, as null is "disposal disabled".
    const off = await sb.call('POST', `${COLLECTIONS}/${created.id}`, { name: 'Spring sale', dataDisposalEnabled: false });
    expect(off.body).toMatchObject({ dataDisposalEnabled: false, dataRetentionDays: null });
  });

  it('refuses a missing name, unknown fields, and inconsistent retention with 400 naming the field', async () => {
    const sb = await startTestSandbox();
    const missing = await sb.call('POST', `${COLLECTIONS}/`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ detail: 'Invalid payload.', errors: { name: ['This field is required.'] } });

    const unknown = await sb.call('POST', `${COLLECTIONS}/`, { name: 'x', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual({ colour: ['Unknown field.'] });

    const retention = await sb.call('POST', `${COLLECTIONS}/`, { name: 'x', dataDisposalEnabled: true });
    expect(retention.status).toBe(400);
    expect(Object.keys(retention.body.errors)).toEqual(['dataRetentionDays']);

    const info = await sb.info();
    const self = await sb.call('POST', `${COLLECTIONS}/`, { name: 'x', sharedWithPartnerOrganizationUid: sb.organizationId });
    expect(self.status).toBe(400);
    expect(Object.keys(self.body.errors)).toEqual(['sharedWithPartnerOrganizationUid']);
    const foreignOwner = await sb.call('POST', `${COLLECTIONS}/`, { name: 'x', organizationUid: info.foreign_organization_id });
    expect(foreignOwner.status).toBe(400);
    expect(Object.keys(foreignOwner.body.errors)).toEqual(['organizationUid']);

    const update = await sb.call('POST', `${COLLECTIONS}/${(await createCollection(sb)).id}`, { dataDisposalEnabled: true });
    expect(update.status).toBe(400);
    expect(Object.keys(update.body.errors)).toContain('name');
  });

  it('deletes an empty collection (200) and refuses (409) while it holds an interaction or a theme', async () => {
    const sb = await startTestSandbox();
    const empty = await createCollection(sb, { name: 'Empty' });
    const del = await sb.call('DELETE', `${COLLECTIONS}/${empty.id}`);
    expect(del.status).toBe(200);
    expect((await sb.call('GET', `${COLLECTIONS}/${empty.id}`)).status).toBe(404);

    // With an interaction (its create also made the collection's default theme).
    const used = await createCollection(sb, { name: 'Used' });
    const interaction = await createInteraction(sb, used.id);
    const refused = await sb.call('DELETE', `${COLLECTIONS}/${used.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/1 interaction\(s\) and 1 theme\(s\)/);
    expect((await sb.call('GET', `${COLLECTIONS}/${used.id}`)).status).toBe(200);

    // The interaction gone, the theme still refuses; removing the theme allows the delete.
    await sb.call('DELETE', legacyPath(interaction.id));
    const themeOnly = await sb.call('DELETE', `${COLLECTIONS}/${used.id}`);
    expect(themeOnly.status).toBe(409);
    expect(themeOnly.body.detail).toMatch(/0 interaction\(s\) and 1 theme\(s\)/);
    expect((await sb.call('DELETE', `/_sandbox/themes/${interaction.theme_id}`)).status).toBe(204);
    expect((await sb.call('DELETE', `${COLLECTIONS}/${used.id}`)).status).toBe(200);
  });

  it('a theme added through the control API alone refuses the delete', async () => {
    const sb = await startTestSandbox();
    const collection = await createCollection(sb);
    const theme = await sb.call('POST', '/_sandbox/themes', { collection_id: collection.id, name: 'Dark' });
    expect(theme.status).toBe(201);
    expect((await sb.call('DELETE', `${COLLECTIONS}/${collection.id}`)).status).toBe(409);
    expect((await sb.call('POST', '/_sandbox/themes', { collection_id: 9999 })).status).toBe(400);
  });

  it('serves the same collections under the older /api/v1/groups paths', async () => {
    const sb = await startTestSandbox();
    const viaGroups = await sb.call('POST', '/api/v1/groups/', { name: 'Old client' });
    expect(viaGroups.status).toBe(201);
    expect((await sb.call('GET', `${COLLECTIONS}/${viaGroups.body.id}`)).body.name).toBe('Old client');
    expect((await sb.call('GET', '/api/v1/groups')).body).toEqual((await sb.call('GET', COLLECTIONS)).body);
    expect((await sb.call('POST', `/api/v1/groups/${viaGroups.body.id}`, { name: 'Renamed' })).body.name).toBe('Renamed');
    expect((await sb.call('DELETE', `/api/v1/groups/${viaGroups.body.id}`)).status).toBe(200);
    expect((await sb.call('GET', COLLECTIONS)).body).toEqual([]);
  });

  it('needs credentials (401), hides other organizations’ collections (404) and lets a partner read a shared one', async () => {
    const sb = await startTestSandbox();
    expect((await sb.call('GET', COLLECTIONS, undefined, { authorization: null })).status).toBe(401);
    expect((await sb.call('GET', COLLECTIONS, undefined, { authorization: 'Token nope' })).status).toBe(401);
    const foreign = await foreignAuthorization(sb);
    const info = await sb.info();
    const own = await createCollection(sb, { name: 'Private' });
    const shared = await createCollection(sb, { name: 'Shared', sharedWithPartnerOrganizationUid: info.foreign_organization_id });

    expect((await sb.call('GET', `${COLLECTIONS}/${own.id}`, undefined, { authorization: foreign })).status).toBe(404);
    const seen = await sb.call('GET', COLLECTIONS, undefined, { authorization: foreign });
    expect(seen.body.map((c: { name: string }) => c.name)).toEqual(['Shared']);
    // A partner reads but neither changes nor deletes.
    expect((await sb.call('POST', `${COLLECTIONS}/${shared.id}`, { name: 'Mine now' }, { authorization: foreign })).status).toBe(404);
    expect((await sb.call('DELETE', `${COLLECTIONS}/${shared.id}`, undefined, { authorization: foreign })).status).toBe(404);
    expect((await sb.call('GET', `${COLLECTIONS}/abc`)).status).toBe(400);
  });
});
