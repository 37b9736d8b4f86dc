/** What the main thread and the writer thread (writer-worker.ts) say to each other. */

export interface WriterData {
  path: string;
  synchronous: 'full' | 'normal';
  busyTimeoutMs: number;
  maxGroup?: number;
  /** The lock shared with the main thread's writer (write-lock.ts). */
  lockMemory: SharedArrayBuffer;
  /** The module whose `WRITE_COMMANDS` the thread runs. */
  commandsUrl: string;
}

export interface WireError {
  name: string;
  message: string;
  code?: string | undefined;
}

export type WriteResult = { id: number; value: unknown } | { id: number; error: WireError };

export type ToWriter = { t: 'batch'; writes: { id: number; name: string; args: unknown }[] } | { t: 'close' };

export type FromWriter =
  | { t: 'ready' }
  | { t: 'failed'; error: WireError }
  | { t: 'group'; ticket: number; results: WriteResult[] }
  | { t: 'closed' };
