/**
 * Helpers of the builder and form data suites: a collection, an interaction
 * created from the default template, a token of the foreign organization,
 * and submissions seeded through the control API.
 */
import { expect } from 'vitest';
import type { TestSandbox } from './support.ts';

export const COLLECTIONS = '/api/v1/collections';

export async function createCollection(sb: TestSandbox, fields: Record<string, unknown> = {}): Promise<{ id: number; name: string }> {
  const res = await sb.call('POST', `${COLLECTIONS}/`, { name: 'Campaigns', ...fields });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Creates an interaction from GET /api/templates/default, with overrides. */
export async function createInteraction(
  sb: TestSandbox,
  collectionId: number,
  fields: Record<string, unknown> = {},
  authorization?: string,
) {
  const template = (await sb.call('GET', '/api/templates/default')).body;
  const res = await sb.call('POST', '/api/interactions/', { ...template, workspaceUid: collectionId, ...fields }, { authorization });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; legacy_id: number; theme_id: number; name: string; updated_at: string; collection_id: number };
}

export const v2Path = (sb: TestSandbox, id = '') => `/api/v2/orgs/${sb.organizationId}/interactions${id === '' ? '' : `/${id}`}`;
export const legacyPath = (id: string | number, action = '') => `/api/interactions/${id}${action === '' ? '' : `/${action}`}`;

/** A `Token …` header of the foreign organization's agent. */
export async function foreignAuthorization(sb: TestSandbox): Promise<string> {
  const info = await sb.info();
  const res = await sb.call('POST', '/_sandbox/tokens', { scopes: [], organization_id: info.foreign_organization_id });
  return `Token ${res.body.token}`;
}

/** Moves the sandbox clock so two changes get distinct times. */
export const advance = (sb: TestSandbox, seconds = 1) => sb.call('POST', '/_sandbox/clock', { advance_seconds: seconds });

export async function seedSubmissions(sb: TestSandbox, submissions: Record<string, unknown>[]) {
  const res = await sb.call('POST', '/_sandbox/submissions', { submissions });
  expect(res.status, res.text).toBe(201);
  return res.body.results as { id: number; timestamp: string; formdata: Record<string, unknown> }[];
}
