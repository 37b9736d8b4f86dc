/**
 * Zammad's webhooks, as a trigger calls them: a webhook (Manage → Webhook)
 * with an endpoint and an "HMAC SHA1 Signature Token", and a trigger whose
 * condition is "ticket created or updated" (here: any ticket created, any
 * article added) with the webhook as its action.
 *
 *   https://admin-docs.zammad.org/en/latest/manage/webhook.html           the webhook, its signature token
 *   https://admin-docs.zammad.org/en/latest/manage/webhook/payload.html   the default payload: {"ticket": {…}, "article": {…}}
 *   https://github.com/zammad/zammad (app/jobs/trigger_webhook_job.rb, …/trigger_webhook_job/custom_payload)
 *       the headers: X-Zammad-Trigger, X-Zammad-Delivery, X-Hub-Signature = "sha1=" + hex HMAC-SHA1 of the body
 *
 * Zammad posts from a background job, after the change committed; so does
 * this, after the store call returned. It does not retry a failed call here
 * (Zammad retries a few times with a growing delay): the tests only count.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { ZArticle, ZTicket } from './zammad-model.ts';
import type { ZammadStore } from './zammad-store.ts';

export interface ZammadWebhook {
  /** The answers' statuses, in the order the calls ended. */
  readonly answers: number[];
  /** Waits for the calls under way. */
  settled(): Promise<void>;
  remove(): void;
}

export const signature = (token: string, body: string) => `sha1=${createHmac('sha1', token).update(body).digest('hex')}`;

function payload(store: ZammadStore, ticket: ZTicket, article: ZArticle | undefined): Record<string, unknown> {
  const group = store.groups.find((g) => g.id === ticket.group_id);
  const state = store.states.find((s) => s.id === ticket.state_id);
  const { versions: _versions, ...fields } = ticket;
  return {
    ticket: { ...fields, group: group ? { id: group.id, name: group.name } : null, state: state?.name ?? null },
    article: article ? { id: article.id, ticket_id: article.ticket_id, type: article.type, sender: article.sender, internal: article.internal, body: article.body, created_at: article.created_at } : {},
  };
}

/** Calls `endpoint` for every ticket created and article added, signed with `token` (none: unsigned). */
export function addWebhook(store: ZammadStore, endpoint: string, token: string | undefined, trigger = 'threadgate'): ZammadWebhook {
  const answers: number[] = [];
  const pending = new Set<Promise<void>>();
  const listener = (ticket: ZTicket, article: ZArticle | undefined) => {
    const body = JSON.stringify(payload(store, ticket, article));
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Zammad User Agent', 'x-zammad-trigger': trigger, 'x-zammad-delivery': randomUUID() };
    if (token !== undefined) headers['x-hub-signature'] = signature(token, body);
    const call = fetch(endpoint, { method: 'POST', headers, body })
      .then(async (res) => {
        await res.arrayBuffer();
        answers.push(res.status);
      }, () => {
        answers.push(0);
      })
      .finally(() => pending.delete(call));
    pending.add(call);
  };
  store.onChange.push(listener);
  return {
    answers,
    settled: async () => {
      while (pending.size > 0) await Promise.all(pending);
    },
    remove() {
      store.onChange.splice(store.onChange.indexOf(listener), 1);
    },
  };
}
