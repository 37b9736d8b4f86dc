/** Spec 02 as data: SPEC_02_ENDPOINTS against the document's "Endpoints" tables. */
import { describe, expect, it } from 'vitest';
import { SPEC_02_ENDPOINTS } from '../../../src/platform/endpoints/spec-02.ts';

/** Every endpoint of spec 02, copied by hand from its "Endpoints" tables. */
const DOCUMENTED = [
  // Form data (under {builder_url})
  'GET /api/orgs/<organization_id>/forms/data',
  'DELETE /api/orgs/<organization_id>/forms/data/<submission_id>',
  'GET /api/orgs/<organization_id>/forms/count',
  'POST /api/orgs/<organization_id>/forms/csv',
  // Interactions (under {builder_url})
  'GET /api/v2/orgs/<organization_id>/interactions',
  'GET /api/v2/orgs/<organization_id>/interactions/<interaction_id>',
  'GET /api/interactions/<interaction_id>',
  'POST /api/interactions/<interaction_id>',
  'DELETE /api/interactions/<interaction_id>',
  'POST /api/v2/orgs/<organization_id>/interactions/<interaction_id>/copy',
  'POST /api/v2/orgs/<organization_id>/interactions/<interaction_id>/move',
  'POST /api/interactions/',
  'POST /api/interactions/<interaction_id>/publish',
  'POST /api/interactions/<interaction_id>/unpublish',
  'POST /api/interactions/<interaction_id>/revert',
  'GET /api/templates/default',
  // Collections (under {builder_url})
  'GET /api/v1/collections',
  'GET /api/v1/collections/<collection_id>',
  'POST /api/v1/collections/',
  'POST /api/v1/collections/<collection_id>',
  'DELETE /api/v1/collections/<collection_id>',
  // Workflow reporting (under {api_url}/api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>)
  'POST /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>/step/<step_index>',
  'POST /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>/step/<step_index>/download/',
  'POST /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>/source_data',
  'POST /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>/source_data/download/',
  'GET /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>/info/',
  // Event listing (under {api_url}/api/objectives/v1/orgs/<organization_id>)
  'POST /api/objectives/v1/orgs/<organization_id>/event-types',
  'POST /api/objectives/v1/orgs/<organization_id>/events',
  'POST /api/objectives/v1/orgs/<organization_id>/message-events',
];

const DOWNLOADS = ['exportFormSubmissionsCsv', 'downloadWorkflowStepRows', 'downloadWorkflowSourceData'];

// ─── The endpoint list ──────────────────────────────────────────────────────

describe('SPEC_02_ENDPOINTS', () => {
  const key = (e: { method: string; path: string }) => `${e.method} ${e.path}`;

  it('has one entry for every documented endpoint, and no other', () => {
    expect(SPEC_02_ENDPOINTS.map(key).sort()).toEqual([...DOCUMENTED].sort());
    expect(SPEC_02_ENDPOINTS).toHaveLength(29);
  });

  it('gives every endpoint a unique lowerCamelCase id', () => {
    const ids = SPEC_02_ENDPOINTS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
  });

  it('gives every endpoint a unique method and path, even ignoring parameter names and a trailing slash', () => {
    const keys = SPEC_02_ENDPOINTS.map(key);
    expect(new Set(keys).size).toBe(keys.length);
    const routes = SPEC_02_ENDPOINTS.map((e) => `${e.method} ${e.path.replace(/<[^>]+>/g, '<>').replace(/\/$/, '')}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it('sends builder paths to the builder address and reporting paths to the API address', () => {
    const builder = ['/api/orgs/', '/api/v2/', '/api/interactions', '/api/v1/collections', '/api/templates/'];
    const api = ['/api/v5/', '/api/pub/', '/api/reporting/', '/api/objectives/'];
    for (const e of SPEC_02_ENDPOINTS) {
      const expected = builder.some((p) => e.path.startsWith(p)) ? 'builder' : api.some((p) => e.path.startsWith(p)) ? 'api' : 'none';
      expect({ id: e.id, upstream: e.upstream }).toEqual({ id: e.id, upstream: expected });
    }
  });

  it('marks the CSV and XLSX exports as downloads, with a body schema and no response schema', () => {
    expect(SPEC_02_ENDPOINTS.filter((e) => e.download).map((e) => e.id).sort()).toEqual([...DOWNLOADS].sort());
    for (const e of SPEC_02_ENDPOINTS.filter((x) => x.download)) {
      expect(e.body, e.id).toBeDefined();
      expect(e.response, e.id).toBeUndefined();
    }
  });

  it('writes placeholders as <snake_case> and names its source section', () => {
    for (const e of SPEC_02_ENDPOINTS) {
      expect(e.path.replace(/<[a-z_]+>/g, 'x'), e.id).not.toMatch(/[<>{}]/);
      expect(e.source, e.id).toMatch(/^02 /);
      expect(e.summary.length, e.id).toBeGreaterThan(0);
    }
  });

  it('checks the JSON body of every POST that has a documented or not-shown payload', () => {
    const withoutBody = SPEC_02_ENDPOINTS.filter((e) => e.method === 'POST' && e.body === undefined).map((e) => e.id);
    // Publish and unpublish take only the query `tag`.
    expect(withoutBody.sort()).toEqual(['publishInteraction', 'unpublishInteraction']);
  });
});
