/**
 * The files `connector new --kind ticket` writes, from ./templates/ticket/:
 * the module on the ticket seam (threadgate/ticket), its `TicketAdapter` over
 * a small JSON API, a stand-in desk speaking that API for the tests, and the
 * tests (the ticket-adapter contract, the connector contract, a round trip).
 * The templates are whole TypeScript files with `__type__`, `__camel__` and
 * `__Pascal__` where the names go; the scaffold test type-checks what they become.
 */
import { readFileSync } from 'node:fs';
import type { Names } from './names.ts';

const TEMPLATES = new URL('./templates/ticket/', import.meta.url);

function fill(template: string, { type, camel, pascal }: Names): string {
  return readFileSync(new URL(template, TEMPLATES), 'utf8').replaceAll('__type__', type).replaceAll('__camel__', camel).replaceAll('__Pascal__', pascal);
}

/** File name → text of the ticket kind's TypeScript files. */
export function ticketFiles(names: Names): Record<string, string> {
  return {
    [`${names.type}.ts`]: fill('module.ts.tmpl', names),
    [`${names.type}-adapter.ts`]: fill('adapter.ts.tmpl', names),
    [`${names.type}-stand-in.ts`]: fill('stand-in.ts.tmpl', names),
    [`${names.type}.test.ts`]: fill('test.ts.tmpl', names),
  };
}
