/**
 * The event listing side of the sandbox's world: seeded generic events,
 * seeded message events, and named value sets (the "pipeline value sets"
 * generic-event filters may refer to as `$name`), per organization. Chat
 * messages of the sandbox's own chats are listed as message events too.
 */
import { randomUUID } from 'node:crypto';
import type { SandboxState } from '../state.ts';
import { newCursorKey } from './cursor.ts';
import type { GenericEventRecord, MessageEventRecord } from './model.ts';

export type NewEvent<T> = Omit<T, 'id' | 'tieKey'>;

const pad = (n: number) => String(n).padStart(10, '0');

export class EventListingState {
  readonly generic: GenericEventRecord[] = [];
  readonly messages: MessageEventRecord[] = [];
  /** organization id → value set name → values. */
  private readonly valueSets = new Map<string, Map<string, string[]>>();
  private recorded = 0;
  /** Signs the listing cursors of this sandbox (random, never sent). */
  readonly cursorKey: Buffer = newCursorKey();

  addGeneric(event: NewEvent<GenericEventRecord>): GenericEventRecord {
    const record = { ...event, id: randomUUID(), tieKey: `s${pad((this.recorded += 1))}` };
    this.generic.push(record);
    return record;
  }

  addMessage(event: NewEvent<MessageEventRecord>): MessageEventRecord {
    const record = { ...event, id: randomUUID(), tieKey: `s${pad((this.recorded += 1))}` };
    this.messages.push(record);
    return record;
  }

  setValueSet(organizationId: string, name: string, values: string[]): void {
    let sets = this.valueSets.get(organizationId);
    if (sets === undefined) this.valueSets.set(organizationId, (sets = new Map()));
    sets.set(name, values);
  }

  valueSet(organizationId: string, name: string): readonly string[] | undefined {
    return this.valueSets.get(organizationId)?.get(name);
  }

  genericOf(organizationId: string): GenericEventRecord[] {
    return this.generic.filter((e) => e.organizationId === organizationId);
  }

  /** Seeded message events plus one per message of the organization's sandbox chats. */
  messagesOf(state: SandboxState, organizationId: string): MessageEventRecord[] {
    const fromChats: MessageEventRecord[] = [];
    for (const chat of state.chats.values()) {
      if (chat.organizationId !== organizationId) continue;
      for (const [i, m] of state.messagesOf(chat.id).entries()) {
        fromChats.push({
          id: m.id,
          tieKey: `c${chat.id}:${pad(i)}`,
          organizationId,
          collectorCreatedAt: m.createdAt,
          timestamp: m.createdAt,
          caseId: null,
          columns: {
            chat_id: chat.id,
            message_id: m.id,
            room_id: chat.roomId,
            visitor_id: chat.visitorId,
            user_id: m.senderType === 'user' ? m.senderId : null,
            sender_type: m.senderType,
            type: m.type,
          },
        });
      }
    }
    return [...this.messages.filter((e) => e.organizationId === organizationId), ...fromChats];
  }
}
