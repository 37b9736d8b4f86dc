/**
 * `serve --watch`, the author's edit loop: a connector of its own module is
 * made anew when a code file of its folder changes (the module, or a helper
 * beside it: `.ts`, `.js`, `.mjs`, `.cjs`, `.json`, not under node_modules),
 * and when its entry in the settings file changes. The settings file's other
 * changes are applied as a SIGHUP applies them. Changes of a moment are taken
 * together; one connector reloads at a time. Its stored state and queued jobs
 * stay; a reload that fails (a syntax error, a settings problem) keeps the
 * running code and says why.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import type { ConnectorEntry } from '../config/schema.ts';
import { loadSettings, type LoadedSettings } from '../config/load.ts';
import type { Logger } from '../log/logger.ts';
import { moduleFileOf } from '../connector/registry.ts';
import type { RunningGateway } from './gateway.ts';

/** How long after a change the reload waits for the rest of an editor's writes. */
export const WATCH_SETTLE_MS = 150;
const CODE = new Set(['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json']);

export interface Watching {
  close(): void;
}

export function watchConnectors(gateway: RunningGateway, loaded: LoadedSettings, logger: Logger): Watching {
  const log = logger.child({ room: 'watch' });
  const watchers: FSWatcher[] = [];
  const timers = new Map<string, NodeJS.Timeout>();
  let entries = new Map(loaded.settings.connectors.map((e) => [e.name, e]));
  let queue: Promise<void> = Promise.resolve();

  /** Runs `work` once the changes under `key` have settled; one reload at a time. */
  const settle = (key: string, work: () => Promise<void>) => {
    clearTimeout(timers.get(key));
    timers.set(key, setTimeout(() => {
      timers.delete(key);
      queue = queue.then(work, work);
    }, WATCH_SETTLE_MS));
  };

  const reload = async (entry: ConnectorEntry, reason: string) => {
    try {
      await gateway.reloadConnector(entry);
      log.info({ event: 'connector_reloaded', connector: entry.name, reason }, `connector ${entry.name} reloaded: ${reason}`);
    } catch (err) {
      const error = (err as Error).message;
      log.error({ event: 'connector_reload_refused', connector: entry.name, reason, error }, `connector ${entry.name} kept its running code: ${error}`);
    }
  };

  for (const entry of loaded.settings.connectors) {
    const file = moduleFileOf(entry, gateway.baseDir);
    if (file === undefined) continue;
    const folder = dirname(file);
    watchers.push(
      watch(folder, { recursive: true }, (_event, name) => {
        const changed = name === null ? '' : String(name);
        if (changed.split('/').includes('node_modules') || !CODE.has(extname(changed))) return;
        settle(`module:${entry.name}`, () => reload(entries.get(entry.name) ?? entry, `${changed} changed`));
      }),
    );
    log.info({ connector: entry.name, folder }, `watching ${folder} for changes to connector ${entry.name}`);
  }

  const settingsFile = loaded.file;
  if (settingsFile !== null) {
    // The folder, not the file: an editor that saves by renaming a new file over it would end a watch of the file.
    watchers.push(
      watch(dirname(settingsFile), (_event, name) => {
        if (name === null || String(name) !== basename(settingsFile)) return;
        settle('settings', async () => {
          let next: LoadedSettings;
          try {
            next = loadSettings({ path: settingsFile });
          } catch (err) {
            log.error({ event: 'settings_reload_failed', error: (err as Error).message }, `the settings file has problems; nothing changed: ${(err as Error).message}`);
            return;
          }
          const before = entries;
          entries = new Map(next.settings.connectors.map((e) => [e.name, e]));
          // What a SIGHUP applies, logged as it logs it; a connector of its own module is made anew below.
          gateway.reload(new Set([...entries.values()].filter((e) => before.has(e.name) && moduleFileOf(e, gateway.baseDir) !== undefined).map((e) => e.name)));
          for (const [name, entry] of entries) {
            const old = before.get(name);
            if (old === undefined) log.warn({ connector: name }, `connector ${name} is new in the settings: it needs a restart`);
            else if (JSON.stringify(old) !== JSON.stringify(entry) && moduleFileOf(entry, gateway.baseDir) !== undefined) await reload(entry, 'its settings changed');
          }
        });
      }),
    );
  }
  return {
    close() {
      for (const w of watchers) w.close();
      for (const t of timers.values()) clearTimeout(t);
    },
  };
}
