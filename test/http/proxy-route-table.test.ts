/**
 * The proxy's route table is generated from the endpoint lists: every
 * documented endpoint is reachable at its own path and method, none shadows
 * another, and other methods on a documented path are told apart (405).
 */
import { describe, expect, it } from 'vitest';
import { ProxyRouteTable } from '../../src/http/proxy/route-table.ts';
import { ALL_ENDPOINTS } from '../../src/platform/endpoints/index.ts';

const sample = (template: string) => template.replace(/<([a-z_]+)>/g, (_m, name: string) => `sample-${name}`);

describe('the proxy route table', () => {
  const table = new ProxyRouteTable(ALL_ENDPOINTS);

  it('holds every documented endpoint', () => {
    expect(table.size).toBe(ALL_ENDPOINTS.length);
    expect(ALL_ENDPOINTS.length).toBeGreaterThan(50);
  });

  it.each(ALL_ENDPOINTS.map((e) => [e.id, e] as const))('%s resolves to itself with its parameters', (_id, endpoint) => {
    const hit = table.lookup(endpoint.method, sample(endpoint.path));
    expect(hit).not.toBe('method');
    expect(hit && hit !== 'method' ? hit.endpoint.id : undefined).toBe(endpoint.id);
    const names = [...endpoint.path.matchAll(/<([a-z_]+)>/g)].map((m) => m[1] as string);
    if (hit && hit !== 'method') for (const name of names) expect(hit.params[name]).toBe(`sample-${name}`);
  });

  it('tells an undocumented method on a documented path (405) from an unknown path (404)', () => {
    expect(table.lookup('DELETE', '/api/v5/orgs/o/unified_messaging')).toBe('method');
    expect(table.lookup('GET', '/api/v5/orgs/o/nothing')).toBeUndefined();
  });
});
