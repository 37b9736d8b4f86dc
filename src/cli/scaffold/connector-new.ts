/**
 * `threadgate connector new <type> [--dir DIR] [--kind webhook|poller|ticket]`: a
 * ready folder for a connector written outside the repository — its module
 * on `defineConnector`, a test that runs, package.json, tsconfig.json,
 * settings.example.yaml and a README. `npm install`, `npm test` and
 * `npx tsc --noEmit` pass in it as written.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ThreadgateError } from '../../base/errors.ts';
import { UsageError } from '../errors.ts';
import { namesOf, SCAFFOLD_TYPE } from './names.ts';
import { pollerModule, pollerTest } from './poller-kind.ts';
import { ticketFiles } from './ticket-kind.ts';
import { GITIGNORE, gatewayInstall, packageJson, readme, settingsExample, tsconfigJson, type ScaffoldKind } from './project-files.ts';
import { webhookModule, webhookTest } from './webhook-kind.ts';

/** The folder is there and not empty: nothing is written over. */
export class ScaffoldFolderTakenError extends ThreadgateError {
  readonly code = 'TG_SCAFFOLD_FOLDER_TAKEN';
}

export const SCAFFOLD_KINDS: readonly ScaffoldKind[] = ['webhook', 'poller', 'ticket'];

/** The gateway's install this command runs from. */
const GATEWAY_ROOT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

export interface ScaffoldResult {
  dir: string;
  files: string[];
}

export function scaffoldConnector(type: string, options: { dir?: string | undefined; kind?: string | undefined; cwd?: string }): ScaffoldResult {
  if (!SCAFFOLD_TYPE.test(type)) throw new UsageError(`the type must be lower-case letters, digits and dashes, a letter first (chatline, live-chat), got "${type}"`);
  const kind = (options.kind ?? 'webhook') as ScaffoldKind;
  if (!SCAFFOLD_KINDS.includes(kind)) throw new UsageError(`--kind must be ${SCAFFOLD_KINDS.join(', ')}, got "${kind}"`);
  const dir = resolve(options.cwd ?? process.cwd(), options.dir ?? type);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new ScaffoldFolderTakenError(`${dir} is not empty: give --dir a new or empty folder`);
  const names = namesOf(type);
  const gateway = gatewayInstall(GATEWAY_ROOT);
  const code: Record<string, string> =
    kind === 'ticket'
      ? ticketFiles(names)
      : { [`${type}.ts`]: kind === 'webhook' ? webhookModule(names) : pollerModule(names), [`${type}.test.ts`]: kind === 'webhook' ? webhookTest(names) : pollerTest(names) };
  const files: Record<string, string> = {
    ...code,
    'package.json': packageJson(names, gateway),
    'tsconfig.json': tsconfigJson(),
    'settings.example.yaml': settingsExample(names, kind),
    'README.md': readme(names, kind),
    '.gitignore': GITIGNORE,
  };
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { flag: 'wx' });
  return { dir, files: Object.keys(files) };
}

/** What `connector new` prints: the folder, its files and the next steps. */
export function scaffoldReport(result: ScaffoldResult, type: string, cwd = process.cwd()): string {
  const at = relative(cwd, result.dir) || '.';
  return [
    `wrote ${result.files.length} files in ${result.dir}:`,
    ...result.files.map((f) => `  ${f}`),
    '',
    'next:',
    `  cd ${at}`,
    '  npm install',
    '  npm test',
    '  npx tsc --noEmit',
    '  npx threadgate serve --config settings.example.yaml',
    `  npx threadgate connector test ./${type}.ts`,
    '',
  ].join('\n');
}
