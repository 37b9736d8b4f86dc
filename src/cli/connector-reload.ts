/**
 * One connector made anew from its module, loaded again with the files of
 * its folder (serve --watch): the module imported afresh, its entry checked
 * by the new schema, then the running instance replaced (runtime.replace).
 * Anything that fails before the swap — a syntax error, a missing export, a
 * settings problem, `create` throwing — leaves the old instance running.
 */
import { ThreadgateError } from '../base/errors.ts';
import type { ConnectorEntry } from '../config/schema.ts';
import { checkOwnKeys, importDefinition, moduleFileOf } from '../connector/registry.ts';
import type { ConnectorRuntime, ContextFactory } from '../connector/runtime.ts';

/** The connector could not be made anew; the running one is kept. */
export class ConnectorReloadError extends ThreadgateError {
  readonly code = 'TG_CONNECTOR_RELOAD_REFUSED';
}

export interface ReloadDeps {
  runtime: ConnectorRuntime;
  contextFor: ContextFactory;
  /** Where relative `module` paths start (the settings file's folder). */
  baseDir: string;
}

export async function reloadConnector(entry: ConnectorEntry, deps: ReloadDeps): Promise<void> {
  const file = moduleFileOf(entry, deps.baseDir);
  if (file === undefined) throw new ConnectorReloadError(`connector ${entry.name} is bundled (no module of its own to load again): restart to change it`);
  let definition;
  try {
    definition = await importDefinition(file, true);
  } catch (err) {
    throw new ConnectorReloadError((err as Error).message, { cause: err });
  }
  if (definition.type !== entry.type) throw new ConnectorReloadError(`the module at ${file} now defines type "${definition.type}", not "${entry.type}"`);
  const checked = checkOwnKeys(definition, entry);
  if ('problems' in checked) throw new ConnectorReloadError(`its settings do not fit the new module: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  try {
    await deps.runtime.replace(entry.name, definition, checked.config, deps.contextFor);
  } catch (err) {
    throw new ConnectorReloadError(`the new module could not be created: ${(err as Error).message}`, { cause: err });
  }
}
