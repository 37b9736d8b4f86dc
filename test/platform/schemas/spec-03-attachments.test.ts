/**
 * A webhook message's `attachments` (spec 03 says only "array";
 * docs/decisions/webhook-attachments.md): file and image chunks are read as
 * `MessageAttachment`, anything else is kept and never refuses the webhook, and
 * `knownAttachments` answers only the readable ones.
 */
import { describe, expect, it } from 'vitest';
import { knownAttachments, MessageAttachment, MessageCreatedEvent } from '../../../src/platform/schemas/unified-messaging.ts';
import { messageCreatedEnvelope } from '../../support/events.ts';

const file = { type: 'file', url: 'https://files.example.com/a/invoice.pdf', name: 'invoice.pdf', size: 2048 };
const image = { type: 'image', url: 'http://chat.example.com/media/photo.png' };

describe('webhook message attachments', () => {
  it('reads files and images, keeping unknown keys and elements of other shapes', () => {
    const audio = { type: 'audio', url: 'https://files.example.com/a.mp3', title: 'Voice note' };
    const odd = { type: 'file', url: 'ftp://files.example.com/x', name: 'x' };
    const attachments = [{ ...file, mime: 'application/pdf' }, image, audio, odd, 'text', null];
    // Regression guard: attachments used to be z.unknown() only; a stricter union must not refuse a webhook.
    const event = MessageCreatedEvent.parse(messageCreatedEnvelope({ threadId: 't', attachments }));
    expect(event.message.attachments).toEqual(attachments);
    expect(knownAttachments(event.message.attachments)).toEqual([{ ...file, mime: 'application/pdf' }, image]);
  });

  it('a file needs an http(s) url and a name; size is optional, null read as absent', () => {
    expect(MessageAttachment.safeParse({ type: 'file', url: file.url, name: 'a.pdf' }).success).toBe(true);
    expect(MessageAttachment.safeParse({ ...file, size: null }).success).toBe(true);
    expect(MessageAttachment.safeParse({ type: 'file', url: file.url }).success).toBe(false);
    expect(MessageAttachment.safeParse({ type: 'image', url: 'not a url' }).success).toBe(false);
    expect(MessageAttachment.safeParse({ type: 'image', url: 'javascript:alert(1)' }).success).toBe(false);
    expect(knownAttachments([])).toEqual([]);
  });
});
