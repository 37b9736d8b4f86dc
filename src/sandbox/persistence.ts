/**
 * The embedded sandbox's state kept in a file beside the gateway's store, so
 * a restart of `serve` keeps its chats, their ids, the organisation, room and
 * token: a connector's author edits and restarts, and the chat made before
 * is still there. One v8-serialised value (records that share an object stay
 * shared), written whole to a temp file and renamed over the last one: after
 * each change that an answer reported (a write a moment later gathers a
 * burst), and when the sandbox closes. The file also holds where the sandbox
 * listened, for `threadgate sandbox chats|reply` and for the next start,
 * which asks for the same port.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { deserialize, serialize } from 'node:v8';
import type { SandboxSnapshot, SandboxState, Seed } from './state.ts';

const VERSION = 1;
/** How long after a change the file is written: the changes of a burst share one write. */
export const SAVE_DELAY_MS = 100;

export interface SandboxFile {
  version: number;
  /** Where it listened last: http://127.0.0.1:41234. */
  url: string | null;
  seed: Seed;
  state: SandboxSnapshot;
}

/** The file's content, or undefined when there is none; a file from another version, or damaged, is refused. */
export function readSandboxFile(path: string): SandboxFile | undefined {
  if (!existsSync(path)) return undefined;
  let file: SandboxFile;
  try {
    file = deserialize(readFileSync(path)) as SandboxFile;
  } catch (err) {
    throw new Error(`the sandbox file ${path} cannot be read (${(err as Error).message}): remove it to start the sandbox afresh`);
  }
  if (file?.version !== VERSION) throw new Error(`the sandbox file ${path} is of another version (${String(file?.version)}): remove it to start the sandbox afresh`);
  return file;
}

/** Writes the sandbox's state now, whole (a temp file renamed over the last). */
export function writeSandboxFile(path: string, state: SandboxState, seed: Seed, url: string | null): void {
  const file: SandboxFile = { version: VERSION, url, seed, state: state.snapshot() };
  writeFileSync(`${path}.tmp`, serialize(file));
  renameSync(`${path}.tmp`, path);
}

/** A writer that gathers the changes of a moment into one write; `flush` writes what is pending now. */
export class SandboxSaver {
  readonly #path: string;
  readonly #state: SandboxState;
  readonly #seed: Seed;
  #url: string | null = null;
  #timer: NodeJS.Timeout | undefined;

  constructor(path: string, state: SandboxState, seed: Seed) {
    this.#path = path;
    this.#state = state;
    this.#seed = seed;
  }

  /** Where the sandbox listens now; written at once. */
  listening(url: string): void {
    this.#url = url;
    this.flush();
  }

  changed(): void {
    this.#timer ??= setTimeout(() => this.flush(), SAVE_DELAY_MS);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    writeSandboxFile(this.#path, this.#state, this.#seed, this.#url);
  }
}
