/**
 * The inbound dedup is the insert's own (`on conflict … do nothing`), on both
 * backends: a message id the connector already sent stores nothing and says
 * so, and the stored message keeps what it had.
 */
import { describe, expect, it } from 'vitest';
import type { NewInbound } from '../../src/store/inbound-repo.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';

const NOW = 1_790_000_000_000;

describe.each(STORE_BACKENDS)('%s store: an inbound message stored once', (backend) => {
  async function threeMessages() {
    const { store } = await openTestStore(backend);
    const ids = await store.write(async (tx) => {
      const thread = await tx.threads.ensure('mail', 'T', 'thread-T', NOW);
      const stored: number[] = [];
      for (const n of [1, 2, 3]) stored.push((await tx.inbound.insertIfNew(message(thread.id, `m${n}`), NOW)) as number);
      return stored;
    });
    return { store, ids };
  }

  it('stores nothing for a message id the connector already sent', async () => {
    const { store, ids } = await threeMessages();
    const again = await store.write(async (tx) => {
      const thread = await tx.threads.ensure('mail', 'T', 'thread-T', NOW);
      return tx.inbound.insertIfNew({ ...message(thread.id, 'm2'), body: 'changed' }, NOW + 9);
    });
    expect(again).toBeUndefined();
    expect(Number((await store.read.sql.get<{ n: number }>(`select count(*) as n from inbound_messages`))?.n)).toBe(3);
    expect((await store.read.inbound.byId(ids[1] as number))?.body).toBe('text of m2');
  });
});

function message(thread: number, externalId: string): NewInbound {
  return {
    connector: 'mail',
    externalId,
    kind: 'message',
    thread,
    senderId: 'c@example.test',
    senderName: null,
    senderType: 'visitor',
    body: `text of ${externalId}`,
    fullText: null,
    variables: null,
    skipWaitingState: false,
    closeSession: false,
  };
}
