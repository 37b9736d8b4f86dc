/**
 * The threads of a recording context (recording-context.ts): a map by key,
 * each thread's platform id `<connector>:<key>` as the gateway derives it for
 * a connector's own keys, and the `ThreadDirectory` a connector reads them by.
 */
import type { Thread, ThreadDirectory } from '../api.ts';

export interface RecordingThreads {
  threads: ThreadDirectory;
  threadsByKey: Map<string, Thread>;
  /** The thread of `key`, made (open, no chat yet) when it is new. */
  threadOf(key: string): Thread;
}

/** The platform's thread id of a connector's thread key, in the recording context. */
export function recordedThreadId(connector: string, key: string): string {
  return `${connector}:${key}`;
}

export function recordingThreads(connector: string): RecordingThreads {
  const threadsByKey = new Map<string, Thread>();
  const threadOf = (key: string): Thread => {
    let thread = threadsByKey.get(key);
    if (thread === undefined) {
      thread = { key, threadId: recordedThreadId(connector, key), chatId: null, references: [], closed: false, createdAt: new Date() };
      threadsByKey.set(key, thread);
    }
    return thread;
  };
  const threads: ThreadDirectory = {
    get: async (key) => threadsByKey.get(key),
    byThreadId: async (threadId) => [...threadsByKey.values()].find((t) => t.threadId === threadId),
    byReference: async (reference) => [...threadsByKey.values()].find((t) => t.references.includes(reference)),
    async attach(key, references) {
      const thread = threadOf(key);
      thread.references.push(...references.filter((r) => !thread.references.includes(r)));
      return thread;
    },
  };
  return { threads, threadsByKey, threadOf };
}
