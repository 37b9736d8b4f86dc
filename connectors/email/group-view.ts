/**
 * What a group of mails taken together (`MailIntake.takeGroup`) knows before
 * its one commit: the threads and thread info of the group's earlier mails,
 * in memory, over what the store already holds. A reply to a mail of the same
 * group finds that mail's thread, and its chain of Message-IDs builds on the
 * earlier mail's, as if each had been stored before the next was read.
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import { readThreadInfo, type ThreadInfo } from './thread-info.ts';
import type { ThreadLookup } from './threading.ts';

export interface GroupView {
  /** Threads by reference: the group's earlier mails first, then the store. */
  readonly threads: ThreadLookup;
  /** A thread's info: the group's latest for it, else the stored one. */
  infoOf(threadKey: string): Promise<ThreadInfo | undefined>;
  /** Records a mail of the group as submitted: its references lead to `threadKey`, whose info is now `info`. */
  add(threadKey: string, references: readonly string[], info: ThreadInfo): void;
}

export function groupView(ctx: ConnectorContext): GroupView {
  const byReference = new Map<string, string>();
  const infos = new Map<string, ThreadInfo>();
  return {
    threads: {
      async byReference(reference) {
        const key = byReference.get(reference);
        return key !== undefined ? { key } : ctx.threads.byReference(reference);
      },
    },
    async infoOf(threadKey) {
      return infos.get(threadKey) ?? readThreadInfo(ctx.state, threadKey);
    },
    add(threadKey, references, info) {
      for (const reference of references) byReference.set(reference, threadKey);
      infos.set(threadKey, info);
    },
  };
}

/** The store alone, for a mail taken by itself. */
export function storeView(ctx: ConnectorContext): Pick<GroupView, 'threads' | 'infoOf'> {
  return { threads: ctx.threads, infoOf: (threadKey) => readThreadInfo(ctx.state, threadKey) };
}
