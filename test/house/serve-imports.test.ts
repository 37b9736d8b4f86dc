/**
 * What `serve` loads before its settings ask for anything: the modules its
 * start imports statically (the command, the composition root, the e-mail
 * connector) in a process of their own, each module recorded as it loads.
 * Guards against a static import that drags in what only some settings or a
 * first use need (docs/decisions/footprint.md): the proxy, the admin API, the
 * alerts, every endpoint's schemas, the embedded sandbox, the report writers,
 * the PostgreSQL driver, mailparser before a mail, a library root where the
 * gateway uses sub-paths, and Node's own bundled undici (an ES import of
 * `node:http` or a mention of the global FormData loads it).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

const LOAD_AND_LIST = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
for (const entry of ['src/cli/serve-command.ts', 'src/cli/gateway.ts', 'connectors/email/index.ts']) await import(${JSON.stringify(`${ROOT}/`)} + entry);
console.log(JSON.stringify({ loaded, internal: process.moduleLoadList }));
`;

function serveStartImports(): { loaded: string[]; internal: string[] } {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', LOAD_AND_LIST], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const { loaded, internal } = JSON.parse(out) as { loaded: string[]; internal: string[] };
  return { loaded: loaded.map((url) => url.replace(`file://${ROOT}/`, '')), internal };
}

/** Modules only some settings or a first use need; each pattern names one. */
const NOT_AT_THE_START: readonly RegExp[] = [
  /^src\/http\/proxy\/proxy-handler\.ts$/,
  /^src\/cli\/proxy-setup\.ts$/,
  /^src\/http\/admin\/index\.ts$/,
  /^src\/alerts\//,
  /^src\/platform\/endpoints\/index\.ts$/,
  /^src\/sandbox\//,
  /^src\/store\/postgres\/pg-store\.ts$/,
  /node_modules\/(exceljs|csv-stringify|pg|nodemailer|mailparser|html-to-text)\//,
  /node_modules\/drizzle-orm\/index\.js$/,
  /node_modules\/prom-client\/index\.js$/,
  /node_modules\/@opentelemetry\//,
  /node_modules\/undici\/index\.js$/,
];

describe("serve's start", () => {
  it('imports nothing that only some settings or a first use need', () => {
    const { loaded, internal } = serveStartImports();
    expect(loaded.length).toBeGreaterThan(300);
    expect(loaded.filter((m) => NOT_AT_THE_START.some((p) => p.test(m)))).toEqual([]);
    expect(internal.filter((m) => m.includes('internal/deps/undici'))).toEqual([]);
  });
});
