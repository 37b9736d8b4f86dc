/**
 * The connectors' rooms (DESIGN.md, "Rooms"): a connector imports only the
 * public plugin contract (`src/connector/api.ts`), the platform's schemas, its
 * own folder and, for a ticket system, the shared seam `connectors/ticket/`;
 * the seam itself only the contract. A connector that reached into the bridge,
 * the store or another connector would no longer be "one adapter file plus its
 * tests" for the next author to copy.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { relativeImports, sourceFiles } from './import-graph.ts';

const root = join(import.meta.dirname, '../..');
const connectors = join(root, 'connectors');

/** Where a file of `connectors/<type>/` may import from, besides its own folder. */
function allowed(folder: string, target: string): boolean {
  if (target === 'src/connector/api.ts') return true;
  if (folder === 'ticket') return false;
  return target.startsWith('src/platform/schemas/') || target.startsWith('connectors/ticket/');
}

function breaches(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(connectors)) {
    const folder = relative(connectors, file).split('/')[0]!;
    for (const target of relativeImports(file, readFileSync(file, 'utf8'))) {
      const rel = relative(root, target);
      if (rel.startsWith(`connectors/${folder}/`) || allowed(folder, rel)) continue;
      out.push(`${relative(root, file)} imports ${rel}`);
    }
  }
  return out;
}

describe('the connectors’ rooms', () => {
  it('each connector imports only the contract, the platform schemas, its own folder and the ticket seam', () => {
    expect(breaches()).toEqual([]);
  });

  it('the rule sees a breach: the seam may not import a connector, a connector not the bridge', () => {
    expect(allowed('ticket', 'connectors/redmine/config.ts')).toBe(false);
    expect(allowed('redmine', 'src/bridge/submit.ts')).toBe(false);
    expect(allowed('redmine', 'connectors/email/index.ts')).toBe(false);
    expect(allowed('redmine', 'connectors/ticket/ticket-poller.ts')).toBe(true);
  });
});
