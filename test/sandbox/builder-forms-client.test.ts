/**
 * The typed platform client pointed at the sandbox (url, builderUrl and
 * authUrl all the sandbox) drives every builder and form data endpoint of
 * spec 02 with no special cases: collections, interactions in their three
 * shapes, publish/unpublish/revert with tags, copy, move, delete, and form
 * submissions with their CSV export. A request the sandbox answers is parsed
 * with the endpoint's response schema by the client itself.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { PlatformHttpError } from '../../src/platform/client.ts';
import { seedSubmissions } from './builder-support.ts';
import { startTestSandbox } from './support.ts';
import { platformClientFor } from './typed-client.ts';

describe('typed client against the sandbox builder and form data', () => {
  it('collections: create, list, get, update, refused delete, delete', async () => {
    const sb = await startTestSandbox();
    const platform = platformClientFor(sb);
    const created = await platform.createCollection({ body: { name: 'Client collection' } });
    expect(created.organizationUid).toBe(sb.organizationId);
    expect((await platform.listCollections()).map((c) => c.id)).toEqual([created.id]);
    expect((await platform.getCollection({ params: { collection_id: created.id } })).name).toBe('Client collection');
    const updated = await platform.updateCollection({ params: { collection_id: created.id }, body: { name: 'Renamed', sharedWithSupport: true } });
    expect(updated).toMatchObject({ name: 'Renamed', sharedWithSupport: true });

    const template = await platform.getDefaultTemplate();
    const interaction = await platform.createInteraction({
      body: {
        name: 'Blocker',
        editorCanvasSizeType: 'mobile1',
        jsonVersion: template.jsonVersion ?? 1,
        templateName: template.templateName ?? 'default',
        workspaceUid: created.id,
        project: template.project ?? {},
      },
    });
    const refused = await platform.deleteCollection({ params: { collection_id: created.id } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlatformHttpError);
    expect((refused as PlatformHttpError).status).toBe(409);

    await platform.deleteInteraction({ params: { interaction_id: interaction.id } });
    await sb.call('DELETE', `/_sandbox/themes/${interaction.theme_id}`);
    await platform.deleteCollection({ params: { collection_id: created.id } });
    expect(await platform.listCollections()).toEqual([]);
  });

  it('interactions: template, create, list, get, legacy read and update, publish/unpublish with tags, revert, copy, move', async () => {
    const sb = await startTestSandbox();
    const platform = platformClientFor(sb);
    const a = await platform.createCollection({ body: { name: 'A' } });
    const b = await platform.createCollection({ body: { name: 'B' } });
    const template = await platform.getDefaultTemplate();
    const created = await platform.createInteraction({
      body: {
        name: 'Welcome',
        editorCanvasSizeType: 'desktop1',
        jsonVersion: template.jsonVersion ?? 1,
        templateName: template.templateName ?? 'default',
        workspaceUid: a.id,
        project: { step: 1 },
      },
    });
    expect(created.editor_canvas_size_type).toBe('desktop1');
    expect((await platform.listInteractions({ query: { collection_id: a.id, ordering: '-name' } })).map((i) => i.id)).toEqual([created.id]);
    expect((await platform.getInteraction({ params: { interaction_id: created.id } })).draft_data).toEqual({ step: 1 });

    const read = await platform.getLegacyInteraction({ params: { interaction_id: created.id } });
    const published = await platform.publishInteraction({ params: { interaction_id: created.id }, query: { tag: read.tag } });
    expect(published?.published_name).toBe('Welcome');

    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 1 });
    const { tag: _tag, ...rest } = read;
    const saved = await platform.updateInteraction({
      params: { interaction_id: created.id },
      body: { ...rest, tag: read.tag, isPublished: true, publishedDate: published!.published_at, project: { step: 2 } },
    });
    expect(saved.project).toEqual({ step: 2 });
    expect(await platform.unpublishInteraction({ params: { interaction_id: created.id }, query: { tag: read.tag } })).toBeNull();
    const unpublished = await platform.unpublishInteraction({ params: { interaction_id: created.id }, query: { tag: saved.tag } });
    expect(unpublished?.published_name).toBeNull();

    const reverted = await platform.revertInteraction({ params: { interaction_id: created.id }, body: {} });
    expect(reverted.draft_data).toEqual({ step: 1 });

    const copy = await platform.copyInteraction({ params: { interaction_id: created.id }, body: { forceUniqueName: true } });
    expect(copy.name).toBe('Welcome (1)');
    const moved = await platform.moveInteraction({ params: { interaction_id: copy.id }, body: { collection_id: b.id } });
    expect(moved.collection_id).toBe(b.id);
    await platform.deleteInteraction({ params: { interaction_id: copy.id } });
    const gone = await platform.getInteraction({ params: { interaction_id: copy.id } }).catch((e: unknown) => e);
    expect((gone as PlatformHttpError).status).toBe(404);
  });

  it('form data: list, count, delete and CSV export', async () => {
    const sb = await startTestSandbox();
    const platform = platformClientFor(sb);
    const interactionUuid = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    const [first] = await seedSubmissions(sb, [
      { interactionUuid, timestamp: '2026-11-20T08:00:00Z', formdata: { email: 'a@example.com', optIn: true } },
      { interactionUuid, timestamp: '2026-11-21T08:00:00Z', formdata: { email: 'b@example.com' } },
    ]);
    const list = await platform.listFormSubmissions({ query: { interactionUuid, orderDesc: true, jsonLike: JSON.stringify({ email: 'EXAMPLE' }) } });
    expect(Array.isArray(list) && list.map((s) => s.formdata.email)).toEqual(['b@example.com', 'a@example.com']);
    expect(await platform.countFormSubmissions({ query: { interactionUuid, jsonEq: JSON.stringify({ optIn: true }) } })).toEqual({ count: 1 });

    const csv = await platform.exportFormSubmissionsCsv({ body: { token: sb.token, interactionUuid, from: '2026-11-20T00:00:00Z' } });
    expect(csv.contentType).toMatch(/^text\/csv/);
    expect(csv.filename).toBe(`form-data-${interactionUuid}.csv`);
    const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.email, r.optIn])).toEqual([['a@example.com', 'true'], ['b@example.com', '']]);

    await platform.deleteFormSubmission({ params: { submission_id: first!.id } });
    expect(await platform.countFormSubmissions({ query: { interactionUuid } })).toEqual({ count: 1 });
  });
});
