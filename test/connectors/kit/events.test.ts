/**
 * The author kit's event builders (`threadgate/testing`): what they build is
 * a webhook event the gateway reads (its own schema), with fresh ids, the
 * fields given, and the files as a message's attachments.
 */
import { describe, expect, it } from 'vitest';
import { knownAttachments } from '../../../src/connector/api.ts';
import { fileAttachment, imageAttachment, messageCreated, replySuggestionCreated } from '../../../src/connector/testing/index.ts';
import { webhookEventKey, WebhookEvent } from '../../../src/platform/schemas/unified-messaging.ts';

describe('event builders', () => {
  it('build a message_created event the gateway reads, with the text, sender and files given', () => {
    const event = messageCreated({ threadId: 'desk:T-1', text: 'On it', senderName: 'Kim', files: [fileAttachment('a.pdf', { size: 12 }), imageAttachment('https://files.platform.example/p.png')] });
    expect(WebhookEvent.parse(event)).toEqual(event);
    expect(event).toMatchObject({ event_type: 'message_created', thread_id: 'desk:T-1', message: { message: 'On it', sender_name: 'Kim', chat_id: event.chat_id } });
    expect(knownAttachments(event.message.attachments)).toEqual([
      { type: 'file', name: 'a.pdf', url: 'https://files.platform.example/a.pdf', size: 12 },
      { type: 'image', url: 'https://files.platform.example/p.png' },
    ]);
    expect(webhookEventKey(messageCreated({ threadId: 'desk:T-1' }))).not.toBe(webhookEventKey(messageCreated({ threadId: 'desk:T-1' })));
  });

  it('build a reply_suggestion_created event the gateway reads', () => {
    const event = replySuggestionCreated({ threadId: 'desk:T-1', suggestion: 'Say sorry', relevancyScore: 0.8 });
    expect(WebhookEvent.parse(event)).toEqual(event);
    expect(event.reply_suggestion).toMatchObject({ suggestion: 'Say sorry', relevancy_score: 0.8, chat_id: event.chat_id });
  });

  it('refuse what the platform would never send', () => {
    expect(() => messageCreated({ threadId: 'desk:T-1', chatId: 'not-a-uuid' })).toThrow();
    expect(() => replySuggestionCreated({ threadId: 'desk:T-1', relevancyScore: 2 })).toThrow();
  });
});
