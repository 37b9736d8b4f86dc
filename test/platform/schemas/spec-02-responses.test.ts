/** Spec 02 responses: documented objects parse, unknown response fields are kept, wrong types refused. */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { Collection, CollectionList } from '../../../src/platform/schemas/builder-collections.ts';
import { DefaultTemplate, Interaction, InteractionList, InteractionOrStale, LegacyInteraction } from '../../../src/platform/schemas/builder-interactions.ts';
import { ReportingEvent } from '../../../src/platform/schemas/event-listing.ts';
import { FormSubmission, FormSubmissionCount, FormSubmissionList } from '../../../src/platform/schemas/form-submissions.ts';
import { RAW_COLUMNS, RawWorkflowRow, WorkflowInfo, WorkflowRows } from '../../../src/platform/schemas/workflow-reporting.ts';
import { collection, issues, legacy, listItem, parsed, rawRow, single, submission, workflowInfo } from './spec-02-support.ts';

// ─── Documented objects parse, unknown response fields are kept ─────────────

describe('spec 02 responses', () => {
  const cases: Array<[string, z.ZodType, unknown]> = [
    ['form submission', FormSubmission, submission],
    ['form count', FormSubmissionCount, { count: 3 }],
    ['interaction list', InteractionList, [listItem]],
    ['interaction single', Interaction, single],
    ['legacy interaction', LegacyInteraction, legacy],
    ['collection', Collection, collection],
    ['workflow info', WorkflowInfo, workflowInfo],
    ['raw workflow row', RawWorkflowRow, rawRow],
    ['default template', DefaultTemplate, { name: 'New', jsonVersion: 2, project: {} }],
    ['reporting event', ReportingEvent, { collector_created_at: '2024-05-01T10:00:00.001Z', timestamp: '2024-05-01T10:00:00Z' }],
  ];

  it.each(cases)('a documented %s parses and keeps an unknown field', (_name, schema, value) => {
    const out = parsed(schema, Array.isArray(value) ? value.map((v) => ({ ...v, added_later: 1 })) : { ...(value as object), added_later: 1 });
    const first = (Array.isArray(out) ? out[0] : out) as Record<string, unknown>;
    expect(first.added_later).toBe(1);
  });

  it('keeps unknown fields inside nested objects', () => {
    const out = parsed(WorkflowRows, {
      fields: [{ name: 'Date & Time', type: 'datetime', tz: 'UTC', width: 10 }, { name: 'Visitor ID', type: 'string' }],
      data: [{ 'Date & Time': '2024-05-01T10:00:00Z', 'Visitor ID': 'v-1' }],
      total: 1,
    });
    expect(out.total).toBe(1);
    expect(out.fields[0]?.width).toBe(10);
    expect(parsed(Interaction, { ...single, draft_data: { deep: { x: 1 } } }).draft_data).toEqual({ deep: { x: 1 } });
    expect(parsed(CollectionList, [{ ...collection, color: 'red' }])[0]?.color).toBe('red');
  });

  it('reads null from publish and unpublish with a stale tag', () => {
    expect(parsed(InteractionOrStale, null)).toBeNull();
    expect(parsed(InteractionOrStale, single)?.id).toBe(listItem.id);
  });

  it('accepts a list of submissions as an array or an unshown wrapper object', () => {
    expect(parsed(FormSubmissionList, [submission])).toHaveLength(1);
    expect(parsed(FormSubmissionList, { results: [submission], next: null })).toMatchObject({ next: null });
  });

  it('lists the raw columns in the documented order, event time first', () => {
    expect(RAW_COLUMNS[0]).toBe('timestamp');
    expect(RAW_COLUMNS.at(-1)).toBe('value');
    expect(RAW_COLUMNS).toHaveLength(30);
  });

  it('still refuses a documented field of the wrong type', () => {
    expect(issues(FormSubmission, { ...submission, formdata: { n: 1 } }).map((i) => i.path)).toContain('formdata.n');
    expect(issues(Interaction, { ...single, editor_canvas_size_type: 'tablet' }).map((i) => i.path)).toEqual([
      'editor_canvas_size_type',
    ]);
  });
});
