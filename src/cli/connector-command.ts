/**
 * `threadgate connector new <type>` writes a connector's folder (scaffold/);
 * `threadgate connector test <module|type> [--config PATH] [--connector NAME] [--json]`:
 * runs the contract suite every connector must pass (src/connector/testing/contract.ts)
 * against a connector module, prints each check as passed or failed with the
 * reason, and exits 1 when one fails. The connector's own settings come from
 * its entry in the settings file (`--config`; `--connector` picks one of
 * several of its type), else from `settings.example.yaml` beside the module
 * (what `connector new` writes), else none.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { interpolate } from '../config/interpolate.ts';
import { BUNDLED_DIR, importDefinition, ownKeys } from '../connector/registry.ts';
import { connectorContract } from '../connector/testing/contract.ts';
import { runContract, type CheckResult } from '../connector/testing/contract-run.ts';
import { parse, subcommandError } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, usageLines } from './help.ts';
import { scaffoldConnector, scaffoldReport } from './scaffold/connector-new.ts';
import { printJson } from './table.ts';

export const OPTIONS = {
  config: { type: 'string', short: 'c' },
  connector: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const NEW_OPTIONS = { dir: { type: 'string' }, kind: { type: 'string' } } as const;

export const HELP = [
  commandHelp({
    name: 'connector new',
    summary: 'a ready folder for a connector of your own: module, test, package.json, tsconfig.json, example settings, README',
    usage: ['connector new <type> [--dir DIR] [--kind webhook|poller|ticket]'],
    options: NEW_OPTIONS,
    describe: {
      dir: { value: 'DIR', text: 'the folder to write (new or empty)', default: './<type>' },
      kind: { value: 'K', text: 'webhook: an HTTP route with a signature check; poller: reads a feed on one replica; ticket: a help desk on the ticket seam', default: 'webhook' },
    },
    examples: ['connector new chatline', 'connector new crm-feed --kind poller --dir ./connectors/crm-feed'],
    notes: ['In the folder, npm install, npm test and npx tsc --noEmit pass as written; the gateway is a dependency from this install.'],
  }),
  commandHelp({
    name: 'connector test',
    summary: 'run the contract suite every connector must pass against a module; exit 1 when a check fails',
    usage: ['connector test <module|type> [--config PATH] [--connector NAME] [--json]'],
    options: OPTIONS,
    describe: {
      config: { value: 'PATH', text: "a settings file with the connector's entry (its ${VAR}s from the environment)", default: 'settings.example.yaml beside the module, else none' },
      connector: { value: 'NAME', text: 'the entry to take when the file has several of its type', default: 'the only entry of its type' },
      json: { text: 'every check as JSON: name, ok, reason, skipped, ms' },
    },
    examples: ['connector test ./chatline/chatline.ts', 'connector test webhook --config threadgate.yaml --connector helpdesk'],
    notes: ['The checks: settings schema strict; create/start/stop release everything; routes answer bad requests 4xx and submit nothing; idempotent delivery (in your own tests, where effects can be counted); health shape; no secret in the log.'],
  }),
];

const USAGE = usageLines(HELP);

export async function connectorCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'new') return connectorNew(argv.slice(1));
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, target, ...rest] = positionals;
  if (verb !== 'test') throw subcommandError('connector', ['new', 'test'], verb, USAGE);
  if (target === undefined) throw new UsageError('connector test takes the module to test (a path), or a bundled type', { usage: USAGE });
  if (rest.length > 0) throw new UsageError(`connector test takes one module, got also "${rest.join(' ')}"`, { usage: USAGE });

  const file = moduleFile(target);
  const definition = await importDefinition(file);
  const settings = settingsFor(definition.type, file, values.config, values.connector);
  const results = await runContract(connectorContract(definition, { settings: settings.keys, name: settings.name }));
  if (values.json) printJson(results);
  else process.stdout.write(report(definition.type, file, settings.from, results));
  return results.every((r) => r.ok) ? 0 : 1;
}

function connectorNew(argv: string[]): number {
  const { values, positionals } = parse(argv, NEW_OPTIONS);
  const [type, ...rest] = positionals;
  if (type === undefined) throw new UsageError("connector new takes the connector's type (chatline)", { usage: USAGE });
  if (rest.length > 0) throw new UsageError(`connector new takes one type, got also "${rest.join(' ')}"`, { usage: USAGE });
  const result = scaffoldConnector(type, { dir: values.dir, kind: values.kind });
  process.stdout.write(scaffoldReport(result, type));
  return 0;
}

/** A path to a module, or the name of a bundled connector. */
function moduleFile(target: string): string {
  if (/^[a-z0-9-]+$/.test(target) && !existsSync(target) && existsSync(join(BUNDLED_DIR, target, 'index.ts'))) return join(BUNDLED_DIR, target, 'index.ts');
  const file = isAbsolute(target) ? target : resolve(target);
  if (!existsSync(file)) throw new UsageError(`no module at ${file} (nor a bundled connector of that name)`);
  return file;
}

interface EntrySettings {
  keys: Record<string, unknown>;
  name: string;
  /** Where they came from, for the report. */
  from: string;
}

function settingsFor(type: string, file: string, config: string | undefined, connector: string | undefined): EntrySettings {
  const path = config !== undefined ? resolve(config) : join(dirname(file), 'settings.example.yaml');
  if (config === undefined && !existsSync(path)) return { keys: {}, name: type, from: 'no settings (none given, no settings.example.yaml beside the module)' };
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the settings in ${path}: ${(err as Error).message}`);
  }
  const problems: { path: string; message: string }[] = [];
  const entries = (((interpolate(doc, process.env, problems) ?? {}) as { connectors?: unknown }).connectors ?? []) as Record<string, unknown>[];
  const mine = entries.filter((e) => e?.type === type && (connector === undefined || e.name === connector));
  if (mine.length !== 1) {
    const why = mine.length === 0 ? `has no connector entry of type "${type}"${connector === undefined ? '' : ` named "${connector}"`}` : `has ${mine.length} entries of type "${type}": pick one with --connector NAME`;
    throw new UsageError(`${path} ${why}`);
  }
  const entry = mine[0]!;
  const index = entries.indexOf(entry);
  const unset = problems.filter((p) => p.path.startsWith(`connectors[${index}]`));
  if (unset.length > 0) throw new UsageError(unset.map((p) => `${p.path}: ${p.message}`).join('\n'));
  return { keys: ownKeys(entry), name: String(entry.name ?? type), from: `${path}, entry ${String(entry.name)}` };
}

function report(type: string, file: string, from: string, results: readonly CheckResult[]): string {
  const lines = [`connector ${type} (${file})`, `settings: ${from}`, ''];
  for (const r of results) {
    if (!r.ok) lines.push(`  ✗ ${r.name}`, `      ${r.reason}`);
    else lines.push(`  ✓ ${r.name}${r.skipped ? ` — not applicable: ${r.skipped}` : ''} (${r.ms} ms)`);
  }
  const failed = results.filter((r) => !r.ok).length;
  lines.push('', failed === 0 ? `${results.length} checks passed` : `${failed} of ${results.length} checks failed`, '');
  return lines.join('\n');
}
