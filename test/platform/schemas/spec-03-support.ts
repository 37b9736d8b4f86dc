/** Shared by the spec 03 schema suites: ids, a text chunk, a stored message, and lookup helpers. */
import type { z } from 'zod';
import { SPEC_03_ENDPOINTS } from '../../../src/platform/endpoints/spec-03.ts';

export const U1 = '5f0c3c2e-8a1b-4c3d-9e2f-1a2b3c4d5e6f';
export const U2 = '0b7e6a4c-2d1f-4e3a-8b5c-6d7e8f9a0b1c';
export const U3 = 'c3d4e5f6-a7b8-4c9d-a0e1-f2a3b4c5d6e7';
export const AT = '2025-03-01T10:00:00Z';

export const textChunk = { type: 'text', text: 'Hello' };

export const message = {
  id: U1,
  channel_id: U2,
  sender_id: U3,
  organization_id: U2,
  created_at: AT,
  updated_at: AT,
  body: { version: 3, chunks: [textChunk] },
};

export function paths(result: z.ZodSafeParseResult<unknown>): string[] {
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
}

export function endpoint(id: string) {
  const found = SPEC_03_ENDPOINTS.find((e) => e.id === id);
  if (!found) throw new Error(`no endpoint ${id}`);
  return found;
}
