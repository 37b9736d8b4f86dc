/**
 * The platform thread_id of a connector's thread key: `<connector>:<key>`
 * when that fits the platform's 512 characters, otherwise
 * `<connector>:sha256:<hex of the key>`. Stable for the same key forever, and
 * distinct across connectors that share a room.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../platform/schemas/unified-messaging.ts';

export function deriveThreadId(connector: string, threadKey: string): string {
  const plain = `${connector}:${threadKey}`;
  if (plain.length <= LIMITS.threadId) return plain;
  return `${connector}:sha256:${createHash('sha256').update(threadKey, 'utf8').digest('hex')}`;
}
