/**
 * The smallest useful connector. `POST /connectors/<name>/say` with
 * `{"thread": "t-1", "text": "Hello"}` posts a visitor message to the
 * platform; each agent reply is logged and kept in the connector's state.
 * Unsigned and without a message id of the caller's: a demo, not a pattern
 * for production (see connectors/webhook for that).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineConnector } from 'threadgate/connector';

const SayBody = z.strictObject({ thread: z.string().min(1).max(400), text: z.string().trim().min(1) });

export default defineConnector({
  type: 'echo',
  configSchema: z.strictObject({}),

  create(_config, ctx) {
    ctx.routes.add('POST', '/say', async (request) => {
      let json: unknown;
      try {
        json = JSON.parse(request.rawBody.toString('utf8'));
      } catch {
        return { status: 400, body: { code: 'TG_REQUEST_INVALID', message: 'malformed JSON' } };
      }
      const say = SayBody.safeParse(json);
      if (!say.success) return { status: 400, body: { code: 'TG_REQUEST_INVALID', message: z.prettifyError(say.error) } };
      // Resolves once the message is stored durably; only now may we answer.
      const { thread, text } = say.data;
      const result = await ctx.submit({ threadKey: thread, messageId: randomUUID(), senderId: 'echo-visitor', body: text });
      return { status: 202, body: { thread_id: result.threadId } };
    });

    return {
      start() {},
      stop() {},
      async deliver(event) {
        const text = event.event_type === 'message_created' ? event.message.message : event.reply_suggestion.suggestion;
        ctx.logger.info({ thread_id: event.thread_id, text }, 'echo: agent reply');
        await ctx.state.set('last_reply', { thread_id: event.thread_id, event_type: event.event_type, text });
      },
    };
  },
});
