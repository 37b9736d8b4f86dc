/** Shared by the admin API suites: an answer checked against its published schema, and a refusal checked for its JSON shape. */
import { expect } from 'vitest';
import { ADMIN_ROUTES } from '../../src/http/admin/index.ts';
import type { JsonResponse } from '../sandbox/support.ts';

export const STACK_LINE = /^\s+at .+[:(]/m;

/** The answer matches the zod schema the OpenAPI document publishes for the operation. */
export function conforms(operationId: string, res: JsonResponse): void {
  const route = ADMIN_ROUTES.find((r) => r.operationId === operationId);
  expect(route, operationId).toBeDefined();
  const parsed = route!.response.safeParse(res.body);
  expect(parsed.error?.issues ?? [], `${operationId} answer vs its schema`).toEqual([]);
}

/** A 4xx JSON error body with `code`, no stack, and (for 400) the field named. */
export function refused(res: JsonResponse, status: number, code: string, field?: string, message?: string | RegExp): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.code).toBe(code);
  expect(res.text).not.toMatch(STACK_LINE);
  if (field) {
    const named = (res.body.errors as { path: string; message: string }[]).find((e) => e.path === field);
    expect(named, `an error naming ${field} in ${res.text}`).toBeDefined();
    if (message) expect(named!.message).toMatch(message);
  }
}
