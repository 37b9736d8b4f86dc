/**
 * What the connector keeps per thread in its state (key `thread:<key>`): who
 * to answer, the subject, and the Message-ID chain for In-Reply-To and
 * References of the replies. Small: the chain is capped.
 */
import type { ConnectorState } from '../../src/connector/api.ts';

export const MAX_REFERENCES = 30;

export interface ThreadInfo {
  customer: { address: string; name?: string };
  /** The others on the thread, answered in Cc (reply-all; reply-all.ts). Absent in info written before it existed. */
  cc?: { address: string; name?: string }[];
  subject: string;
  /** The Message-ID of the latest mail from the customer's side. */
  lastMessageId: string;
  /** Message-IDs of the thread, oldest first (both directions), at most MAX_REFERENCES. */
  references: string[];
}

const keyOf = (threadKey: string) => `thread:${threadKey}`;

export async function readThreadInfo(state: ConnectorState, threadKey: string): Promise<ThreadInfo | undefined> {
  return state.get<ThreadInfo>(keyOf(threadKey));
}

export async function writeThreadInfo(state: ConnectorState, threadKey: string, info: ThreadInfo): Promise<void> {
  await state.set(keyOf(threadKey), { ...info, references: info.references.slice(-MAX_REFERENCES) });
}

/** The same as a state entry, for `ctx.submit(message, { state })` (stored in the message's own write). */
export function threadInfoEntry(threadKey: string, info: ThreadInfo): Record<string, ThreadInfo> {
  return { [keyOf(threadKey)]: { ...info, references: info.references.slice(-MAX_REFERENCES) } };
}

/** Adds ids to the chain, keeping order and dropping repeats. */
export function withReferences(info: ThreadInfo, ids: readonly string[]): ThreadInfo {
  const references = [...info.references];
  for (const id of ids) if (!references.includes(id)) references.push(id);
  return { ...info, references: references.slice(-MAX_REFERENCES) };
}
