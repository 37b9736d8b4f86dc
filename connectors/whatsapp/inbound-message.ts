/**
 * What one customer message becomes (docs/decisions/whatsapp-connector.md):
 *
 *   text                                   → its body
 *   image, document, audio, video, sticker → the caption (if any), then the file's line (inbound-media.ts)
 *   location                               → "[location: name, address] latitude, longitude" (and its url)
 *   contacts                               → "[contact: name, phones, e-mails]", one line each
 *   button, interactive (a reply)          → the title the customer tapped
 *   reaction                               → recorded as skipped (TG_WHATSAPP_REACTION): not a message
 *   unsupported, system, order, any other  → recorded as skipped (TG_WHATSAPP_UNSUPPORTED), naming the type
 *
 * Each posted message is submitted with the thread key = the customer's
 * wa_id, message id = the wamid (the dedup key: a webhook Meta sends again
 * posts nothing twice), sender = the wa_id with the profile name; the time of
 * the customer's latest message goes into the connector's state in the same
 * commit (`inbound:<wa_id>`), for the reply's template rule.
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import { InboundMedia, MEDIA_TYPES, type MediaPart, type MediaType } from './inbound-media.ts';
import type { WaMessage } from './webhook-payload.ts';

export type Intake = 'submitted' | 'duplicate' | 'skipped';

/** Where the time of the customer's latest message is kept (ms). */
export const inboundKey = (waId: string) => `inbound:${waId}`;

type Rendered = { body: string } | { skip: { code: string; reason: string; summary?: string } };

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');
const obj = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {});

function location(part: Record<string, unknown>): string {
  const label = [text(part.name), text(part.address)].filter((t) => t !== '').join(', ');
  const url = text(part.url);
  return `[location${label ? `: ${label}` : ''}] ${String(part.latitude ?? '?')}, ${String(part.longitude ?? '?')}${url ? ` ${url}` : ''}`;
}

function contact(card: Record<string, unknown>): string {
  const name = text(obj(card.name).formatted_name) || 'no name';
  const phones = (Array.isArray(card.phones) ? card.phones : []).map((p) => text(obj(p).phone)).filter(Boolean);
  const emails = (Array.isArray(card.emails) ? card.emails : []).map((e) => text(obj(e).email)).filter(Boolean);
  return `[contact: ${[name, ...phones, ...emails].join(', ')}]`;
}

function tapped(message: WaMessage): string {
  if (message.type === 'button') return text(obj(message.button).text);
  const interactive = obj(message.interactive);
  const reply = obj(interactive.button_reply ?? interactive.list_reply);
  return [text(reply.title), text(reply.description)].filter(Boolean).join(' — ');
}

export class InboundMessages {
  readonly #ctx: ConnectorContext;
  readonly #media: InboundMedia;

  constructor(ctx: ConnectorContext, media: InboundMedia) {
    this.#ctx = ctx;
    this.#media = media;
  }

  /** Submits (or records as skipped) one message; resolves after the commit. */
  async take(message: WaMessage, sender: { waId: string; name: string | undefined }, signal: AbortSignal): Promise<Intake> {
    const rendered = await this.#render(message, signal);
    if ('skip' in rendered) {
      const { duplicate } = await this.#ctx.skip({ messageId: message.id, senderId: sender.waId, ...rendered.skip });
      return duplicate ? 'duplicate' : 'skipped';
    }
    const sentAt = /^\d+$/.test(message.timestamp ?? '') ? Number(message.timestamp) * 1000 : Date.now();
    const result = await this.#ctx.submit(
      { threadKey: sender.waId, messageId: message.id, senderId: sender.waId, ...(sender.name ? { senderName: sender.name } : {}), body: rendered.body },
      { state: { [inboundKey(sender.waId)]: sentAt } },
    );
    return result.duplicate ? 'duplicate' : 'submitted';
  }

  async #render(message: WaMessage, signal: AbortSignal): Promise<Rendered> {
    const { type } = message;
    const unsupported = (why: string): Rendered => ({ skip: { code: 'TG_WHATSAPP_UNSUPPORTED', reason: why, summary: `a WhatsApp ${type} message` } });
    if (type === 'text') {
      const body = text(obj(message.text).body);
      return body ? { body } : unsupported('a text message without text');
    }
    if ((MEDIA_TYPES as readonly string[]).includes(type)) {
      const part = obj(message[type]) as unknown as MediaPart;
      if (typeof part.id !== 'string' || part.id === '') return unsupported(`a ${type} message without a media id`);
      const line = await this.#media.line(type as MediaType, part, signal);
      const caption = text(part.caption);
      return { body: caption ? `${caption}\n\n${line}` : line };
    }
    if (type === 'location') return { body: location(obj(message.location)) };
    if (type === 'contacts') {
      const cards = Array.isArray(message.contacts) ? message.contacts : [];
      return cards.length > 0 ? { body: cards.map((c) => contact(obj(c))).join('\n') } : unsupported('a contacts message without contacts');
    }
    if (type === 'button' || type === 'interactive') {
      const title = tapped(message);
      return title ? { body: title } : unsupported(`an ${type} reply the connector cannot read`);
    }
    if (type === 'reaction') {
      const reaction = obj(message.reaction);
      return { skip: { code: 'TG_WHATSAPP_REACTION', reason: 'a reaction to a message, not a message', summary: `${text(reaction.emoji) || 'reaction removed'} on ${text(reaction.message_id)}`.slice(0, 300) } };
    }
    const errors = Array.isArray(message.errors) ? message.errors.map((e) => `${String(obj(e).code ?? '')} ${text(obj(e).title)}`.trim()).filter(Boolean) : [];
    return unsupported(`WhatsApp messages of type "${type}" are not posted${errors.length ? ` (WhatsApp: ${errors.join('; ')})` : ''}`);
  }
}
