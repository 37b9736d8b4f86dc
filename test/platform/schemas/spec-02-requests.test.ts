/** Spec 02 requests: documented ones parse; unknown fields, bad values and limits are refused, naming the field. */
import { describe, expect, it } from 'vitest';
import { SPEC_02_ENDPOINTS } from '../../../src/platform/endpoints/spec-02.ts';
import { CollectionWrite } from '../../../src/platform/schemas/builder-collections.ts';
import {
  InteractionCopyRequest,
  InteractionCreate,
  InteractionListQuery,
  InteractionMoveRequest,
  LegacyInteractionUpdate,
  PublishQuery,
  RevertRequest,
} from '../../../src/platform/schemas/builder-interactions.ts';
import { EventRowsRequest, EventTypesRequest } from '../../../src/platform/schemas/event-listing.ts';
import { FormSubmissionCountQuery, FormSubmissionCsvRequest, FormSubmissionListQuery } from '../../../src/platform/schemas/form-submissions.ts';
import {
  WorkflowSourceDataDownloadRequest,
  WorkflowSourceDataRequest,
  WorkflowStepDownloadRequest,
  WorkflowStepRequest,
} from '../../../src/platform/schemas/workflow-reporting.ts';
import { INTERACTION_UUID, issues, legacy, parsed, stepPayload } from './spec-02-support.ts';

// ─── Requests: documented ones parse, unknown fields and limits are refused ─

describe('spec 02 requests', () => {
  const formQuery = { interactionUuid: INTERACTION_UUID, from: '2024-05-01T00:00:00Z', to: '2024-05-02T00:00:00+02:00' };

  it('accepts the documented form-data filters, query values as text', () => {
    expect(
      parsed(FormSubmissionListQuery, { ...formQuery, url: 'https://shop.example.com/', jsonEq: '{"size":"M"}', jsonLike: '{"email":"@example.com"}', orderDesc: 'true' }),
    ).toMatchObject({ orderDesc: 'true', jsonEq: '{"size":"M"}' });
    expect(parsed(FormSubmissionListQuery, { ...formQuery, orderDesc: false }).orderDesc).toBe('false');
    expect(parsed(FormSubmissionCountQuery, formQuery)).toEqual(formQuery);
    expect(
      parsed(FormSubmissionCsvRequest, { ...formQuery, token: 'abc', jsonEq: { size: 'M' }, jsonLike: '{"email":"x"}', orderDesc: true }),
    ).toMatchObject({ jsonEq: { size: 'M' } });
  });

  it('refuses bad form-data filters, naming the field', () => {
    expect(issues(FormSubmissionListQuery, { ...formQuery, interactionUuid: undefined })[0]?.path).toBe('interactionUuid');
    expect(issues(FormSubmissionListQuery, { ...formQuery, from: 'yesterday' })[0]?.path).toBe('from');
    expect(issues(FormSubmissionListQuery, { ...formQuery, jsonEq: '[1,2]' })[0]?.path).toBe('jsonEq');
    expect(issues(FormSubmissionListQuery, { ...formQuery, jsonLike: '{not json' })[0]?.path).toBe('jsonLike');
    expect(issues(FormSubmissionListQuery, { ...formQuery, orderDesc: 'yes' })[0]?.path).toBe('orderDesc');
    // orderDesc is documented for list and CSV only.
    expect(issues(FormSubmissionCountQuery, { ...formQuery, orderDesc: 'true' })[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['orderDesc'] });
    expect(issues(FormSubmissionCsvRequest, formQuery)[0]?.path).toBe('token');
    expect(issues(FormSubmissionCsvRequest, { ...formQuery, token: 'abc', jsonEq: 'x' })[0]?.path).toBe('jsonEq');
  });

  it('refuses the superseded projectUid with a message pointing to interactionUuid', () => {
    const [issue] = issues(FormSubmissionCsvRequest, { token: 'abc', interactionUuid: INTERACTION_UUID, projectUid: 12 });
    expect(issue?.path).toBe('projectUid');
    expect(issue?.message).toMatch(/interactionUuid/);
  });

  it('accepts the documented interaction writes', () => {
    expect(parsed(InteractionListQuery, { collection_id: '7', ordering: '-updated_at' })).toEqual({ collection_id: '7', ordering: '-updated_at' });
    expect(parsed(InteractionListQuery, { collection_id: 7 }).collection_id).toBe('7');
    const create = { name: 'New', editorCanvasSizeType: 'mobile1', jsonVersion: 2, templateName: 'blank', workspaceUid: 7, project: { views: [] } };
    expect(parsed(InteractionCreate, create)).toEqual(create);
    expect(parsed(InteractionCreate, { ...create, themeId: 3 }).themeId).toBe(3);
    expect(parsed(LegacyInteractionUpdate, { ...legacy, name: 'Renamed' }).name).toBe('Renamed');
    expect(parsed(PublishQuery, { tag: legacy.updatedDate })).toEqual({ tag: legacy.updatedDate });
    expect(parsed(PublishQuery, {})).toEqual({});
    expect(parsed(RevertRequest, {})).toEqual({});
  });

  it('refuses bad interaction writes, naming the field', () => {
    expect(issues(InteractionListQuery, { ordering: 'name desc' })[0]?.path).toBe('ordering');
    expect(issues(InteractionListQuery, { collection_id: 'seven' })[0]?.path).toBe('collection_id');
    const create = { name: 'New', editorCanvasSizeType: 'tablet', jsonVersion: 2, templateName: 'blank', workspaceUid: 7, project: {} };
    expect(issues(InteractionCreate, create).map((i) => i.path)).toEqual(['editorCanvasSizeType']);
    expect(issues(InteractionCreate, { ...create, editorCanvasSizeType: 'mobile1', workspaceUid: undefined }).map((i) => i.path)).toEqual(['workspaceUid']);
    expect(issues(InteractionCreate, { ...create, editorCanvasSizeType: 'mobile1', jsonVersion: 2.5 }).map((i) => i.path)).toEqual(['jsonVersion']);
    // The update is the complete object: without its tag there is no concurrency guard.
    const { tag: _tag, ...untagged } = legacy;
    expect(issues(LegacyInteractionUpdate, untagged).map((i) => i.path)).toEqual(['tag']);
    expect(issues(PublishQuery, { tag: 'latest' })[0]?.path).toBe('tag');
    expect(issues(RevertRequest, { to: 'published' })[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['to'] });
  });

  it('passes the not-shown copy, move and event-listing payloads on, typing what is named', () => {
    expect(parsed(InteractionCopyRequest, { forceUniqueName: true, collection_id: 8 })).toEqual({ forceUniqueName: true, collection_id: 8 });
    expect(issues(InteractionCopyRequest, { forceUniqueName: 'yes' })[0]?.path).toBe('forceUniqueName');
    expect(parsed(InteractionMoveRequest, { collection_id: 8 })).toEqual({ collection_id: 8 });
    expect(parsed(EventTypesRequest, { vendor: 'giosg' })).toEqual({ vendor: 'giosg' });
    expect(parsed(EventRowsRequest, { cursor: 'abc', anything: 1 })).toEqual({ cursor: 'abc', anything: 1 });
    expect(issues(EventRowsRequest, { cursor: 5 })[0]?.path).toBe('cursor');
  });

  it('accepts collection writes with name required', () => {
    expect(parsed(CollectionWrite, { name: 'Campaigns', dataRetentionDays: 30, dataDisposalEnabled: true, sharedWithPartnerOrganizationUid: null })).toMatchObject({
      dataRetentionDays: 30,
    });
    expect(issues(CollectionWrite, { dataRetentionDays: 30 }).map((i) => i.path)).toEqual(['name']);
    expect(issues(CollectionWrite, { name: '' }).map((i) => i.path)).toEqual(['name']);
    expect(issues(CollectionWrite, { name: 'x', dataRetentionDays: 1.5 }).map((i) => i.path)).toEqual(['dataRetentionDays']);
  });

  it('accepts the four workflow payloads with their own target, basic and format values', () => {
    expect(parsed(WorkflowStepRequest, { ...stepPayload, target: 'triggered_goal', basic: true })).toMatchObject({ basic: true });
    expect(parsed(WorkflowStepDownloadRequest, { ...stepPayload, target: 'default', format: 'xlsx' })).toMatchObject({ format: 'xlsx' });
    const outerGoal = { filters: [{ property: 'label', values: ['d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f7a'] }], interval: stepPayload.interval };
    expect(parsed(WorkflowSourceDataRequest, { ...outerGoal, target: 'affected_goal_total' })).toMatchObject({ target: 'affected_goal_total' });
    expect(parsed(WorkflowSourceDataDownloadRequest, { ...outerGoal, format: 'csv' })).toMatchObject({ format: 'csv' });
    // Filter syntax beyond property and values is not shown: extra keys pass.
    expect(parsed(WorkflowStepRequest, { ...stepPayload, filters: [{ property: 'action', values: [], operator: 'in' }] }).filters[0]).toMatchObject({ operator: 'in' });
  });

  it('refuses out-of-limit and misplaced workflow fields, naming the field path', () => {
    expect(issues(WorkflowStepRequest, { ...stepPayload, limit: 0 }).map((i) => i.path)).toEqual(['limit']);
    expect(issues(WorkflowStepRequest, { ...stepPayload, limit: 2.5 }).map((i) => i.path)).toEqual(['limit']);
    expect(issues(WorkflowStepRequest, { ...stepPayload, target: 'affected_goal' }).map((i) => i.path)).toEqual(['target']);
    expect(issues(WorkflowSourceDataRequest, { ...stepPayload, target: 'triggered_goal' }).map((i) => i.path)).toEqual(['target']);
    const [format] = issues(WorkflowStepDownloadRequest, { ...stepPayload, format: 'pdf' });
    expect(format).toMatchObject({ path: 'format', message: 'Must be xlsx or csv.' });
    // basic is for JSON endpoints only, format for downloads only.
    expect(issues(WorkflowStepDownloadRequest, { ...stepPayload, basic: true })[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['basic'] });
    expect(issues(WorkflowSourceDataRequest, { ...stepPayload, format: 'csv' })[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['format'] });
    expect(issues(WorkflowStepRequest, { ...stepPayload, interval: { start: 'today', end: '2024-05-02T00:00:00Z' } }).map((i) => i.path)).toEqual(['interval.start']);
    expect(issues(WorkflowStepRequest, { ...stepPayload, interval: { start: '2024-05-01T00:00:00Z' } }).map((i) => i.path)).toEqual(['interval.end']);
    expect(issues(WorkflowStepRequest, { interval: stepPayload.interval }).map((i) => i.path)).toEqual(['filters']);
    expect(issues(WorkflowStepRequest, { ...stepPayload, step_data: [{}, { action: ['x'] }] })[0]).toMatchObject({
      path: 'step_data.1',
      code: 'unrecognized_keys',
      keys: ['action'],
    });
    expect(issues(WorkflowStepRequest, { ...stepPayload, filters: [{ property: 'action' }] }).map((i) => i.path)).toEqual(['filters.0.values']);
  });

  it('refuses an unknown field in every strict request schema of the list, naming it', () => {
    const valid: Record<string, unknown> = {
      listFormSubmissions: { query: formQuery },
      countFormSubmissions: { query: formQuery },
      exportFormSubmissionsCsv: { body: { ...formQuery, token: 'abc' } },
      listInteractions: { query: {} },
      updateInteraction: { body: legacy },
      createInteraction: { body: { name: 'New', editorCanvasSizeType: 'mobile1', jsonVersion: 2, templateName: 'blank', workspaceUid: 7, project: {} } },
      publishInteraction: { query: {} },
      unpublishInteraction: { query: {} },
      revertInteraction: { body: {} },
      createCollection: { body: { name: 'x' } },
      updateCollection: { body: { name: 'x' } },
      getWorkflowStepRows: { body: stepPayload },
      downloadWorkflowStepRows: { body: stepPayload },
      getWorkflowSourceData: { body: stepPayload },
      downloadWorkflowSourceData: { body: stepPayload },
    };
    // Not shown in spec 02: loose on purpose.
    const loose = ['copyInteraction', 'moveInteraction', 'listEventTypes', 'listEvents', 'listMessageEvents'];
    for (const e of SPEC_02_ENDPOINTS) {
      for (const part of ['query', 'body'] as const) {
        const schema = e[part];
        if (schema === undefined) continue;
        if (loose.includes(e.id)) {
          expect(schema.safeParse({ undocumented: 1 }).success, `${e.id} ${part}`).toBe(true);
          continue;
        }
        const sample = (valid[e.id] as Record<string, unknown> | undefined)?.[part];
        expect(sample, `${e.id} ${part} has a sample`).toBeDefined();
        expect(schema.safeParse(sample).success, `${e.id} ${part} accepts its sample`).toBe(true);
        const refused = issues(schema, { ...(sample as object), undocumented: 1 });
        expect(refused, `${e.id} ${part}`).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['undocumented'] })]);
        expect(refused[0]?.message).toContain('undocumented');
      }
    }
  });
});
