/**
 * The registry: connector `type` → definition. Bundled connectors live in
 * `connectors/<type>/index.ts`; any other is a module named by the settings
 * entry (`module: ./my-connector.ts`, relative to the config file's folder).
 * Each module's default export is a `defineConnector(...)` result. Loading
 * also checks every entry's own keys against its connector's `configSchema`,
 * so `config check` reports them with their paths.
 */
import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigInvalidError, formatPath } from '../config/errors.ts';
import { ConnectorEntry } from '../config/schema.ts';
import { didYouMean } from '../config/suggest.ts';
import { checkValue } from '../config/zod-problems.ts';
import type { ConnectorDefinition } from './api.ts';
import { ConnectorLoadError } from './errors.ts';
import { nextGenerationUrl, resolveConnectorImportsFromGateway } from './module-resolution.ts';

export const BUNDLED_DIR = fileURLToPath(new URL('../../connectors/', import.meta.url));
const TYPE = /^[a-z0-9-]+$/;
/** Keys of an entry that belong to the gateway, not to the connector's own schema. */
export const ENTRY_KEYS: readonly string[] = Object.keys(ConnectorEntry.shape);

export function bundledTypes(): string[] {
  if (!existsSync(BUNDLED_DIR)) return [];
  return readdirSync(BUNDLED_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && TYPE.test(d.name) && existsSync(resolve(BUNDLED_DIR, d.name, 'index.ts')))
    .map((d) => d.name)
    .sort();
}

/** A settings entry as the registry reads it: its name, type, optional module and its own keys. */
export interface ConnectorEntryLike {
  name: string;
  type: string;
  module?: string | undefined;
  [key: string]: unknown;
}

/** A problem with an entry, its path from the settings root (`['connectors', 1, 'imap', 'port']`). */
export interface EntryProblem {
  path: PropertyKey[];
  message: string;
}

/** Throws the problems of `loadConnectors` as one ConfigInvalidError of `source`, if there are any. */
export function assertNoEntryProblems(source: string, problems: readonly EntryProblem[]): void {
  if (problems.length > 0) throw new ConfigInvalidError(source, problems.map((p) => ({ path: formatPath(p.path), message: p.message })));
}

export interface LoadedConnectors {
  definitions: Map<string, ConnectorDefinition>;
  /** Each entry's own keys after its connector's schema, by connector name. */
  configs: Map<string, unknown>;
  problems: EntryProblem[];
}

/**
 * The definition a connector module exports (its default export, made by defineConnector). `fresh`: loaded again
 * with the files of its folder, not the copies loaded before (serve --watch).
 */
export async function importDefinition(file: string, fresh = false): Promise<ConnectorDefinition> {
  let mod: { default?: unknown };
  // A module outside the gateway's install imports `threadgate/connector` and `zod` from the gateway's own.
  resolveConnectorImportsFromGateway();
  try {
    const url = pathToFileURL(file).href;
    mod = (await import(fresh ? nextGenerationUrl(url) : url)) as { default?: unknown };
  } catch (err) {
    throw new ConnectorLoadError(`cannot load ${file}: ${(err as Error).message}`, { cause: err });
  }
  const def = mod.default as Partial<ConnectorDefinition> | undefined;
  if (!def || typeof def.type !== 'string' || typeof def.create !== 'function' || !def.configSchema) {
    throw new ConnectorLoadError(`${file} has no default export made by defineConnector()`);
  }
  return def as ConnectorDefinition;
}

/** Loads the definition of every entry and checks its keys; problems are collected, not thrown. An undefined entry (unreadable) is skipped. */
export async function loadConnectors(entries: readonly (ConnectorEntryLike | undefined)[], baseDir: string): Promise<LoadedConnectors> {
  const definitions = new Map<string, ConnectorDefinition>();
  const configs = new Map<string, unknown>();
  const problems: EntryProblem[] = [];
  const byFile = new Map<string, ConnectorDefinition>();
  const bundled = bundledTypes();

  for (const [i, entry] of entries.entries()) {
    if (entry === undefined) continue;
    const at = (...path: PropertyKey[]): PropertyKey[] => ['connectors', i, ...path];
    let file: string;
    const own = moduleFileOf(entry, baseDir);
    if (own !== undefined) {
      file = own;
    } else if (TYPE.test(entry.type) && bundled.includes(entry.type)) {
      file = resolve(BUNDLED_DIR, entry.type, 'index.ts');
    } else {
      problems.push({ path: at('type'), message: `unknown connector type "${entry.type}"${didYouMean(entry.type, bundled)} (bundled: ${bundled.join(', ') || 'none'}; or give module: PATH)` });
      continue;
    }
    let def = byFile.get(file);
    if (!def) {
      try {
        def = await importDefinition(file);
      } catch (err) {
        problems.push({ path: at(entry.module !== undefined ? 'module' : 'type'), message: (err as Error).message });
        continue;
      }
      byFile.set(file, def);
    }
    if (def.type !== entry.type) {
      problems.push({ path: at('type'), message: `the module at ${file} defines type "${def.type}", not "${entry.type}"` });
      continue;
    }
    definitions.set(entry.type, def);
    const checked = checkValue(def.configSchema, ownKeys(entry), { rootKeys: ENTRY_KEYS });
    if (checked.success) configs.set(entry.name, checked.data);
    else for (const p of checked.problems) problems.push({ path: at(...p.path), message: p.message });
  }
  return { definitions, configs, problems };
}

/** The module file of an entry of its own (`module:`, relative to the settings' folder); undefined for a bundled type. */
export function moduleFileOf(entry: { module?: string | undefined }, baseDir: string): string | undefined {
  if (entry.module === undefined) return undefined;
  return isAbsolute(entry.module) ? entry.module : resolve(baseDir, entry.module);
}

/** An entry's own keys: everything but the gateway's (name, type, room_id, module…). */
export function ownKeys(entry: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([k]) => !ENTRY_KEYS.includes(k)));
}

/** An entry's own keys checked by its (loaded) connector's schema, as a reload does; problems name keys within the entry. */
export function checkOwnKeys(def: ConnectorDefinition | undefined, entry: Readonly<Record<string, unknown>>): { config: unknown } | { problems: { path: string; message: string }[] } {
  if (def === undefined) return { problems: [{ path: 'type', message: `no connector of type "${String(entry.type)}" was loaded at start (a new type needs a restart)` }] };
  const checked = checkValue(def.configSchema, ownKeys(entry), { rootKeys: ENTRY_KEYS });
  return checked.success ? { config: checked.data } : { problems: checked.problems.map((p) => ({ path: formatPath(p.path), message: p.message })) };
}
