/**
 * Every named write (`WriteCommand`) of threadgate, by name: the module the
 * SQLite store's writer thread loads (`writerThread.commandsUrl`, set by
 * `serve`), so that it runs them itself. A named write is listed here or the
 * thread refuses it by name. Kept light: the thread imports what this does.
 */
import type { WriteCommand } from '../store/store.ts';
import { INTAKE_WRITE } from './intake-write.ts';

export const WRITE_COMMANDS: Readonly<Record<string, WriteCommand<never, unknown>>> = Object.fromEntries(
  [INTAKE_WRITE].map((c) => [c.name, c as WriteCommand<never, unknown>]),
);

/** Where the writer thread finds this module. */
export const WRITE_COMMANDS_URL = import.meta.url;
