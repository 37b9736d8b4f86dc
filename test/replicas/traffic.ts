/**
 * Messages flowing both ways through a replica cluster while a test breaks
 * things: customers' messages into the webhook connector `desk` through the
 * balancer (each sent until a 202, as a sender that gets 502/503 retries), and
 * agents' replies written in the platform (the sandbox), which reach `desk`'s
 * outbound URL through whichever replica the platform's webhook lands on.
 * What the tests compare at the end: what was sent, in order, per thread.
 */
import pg from 'pg';
import { startReceiver, type Receiver } from '../connectors/webhook/receiver.ts';
import { OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import type { ReplicaCluster } from '../support/replica-cluster.ts';
import { sleep, until } from '../support/wait.ts';

export { OUTBOUND_SECRET };

/** The `desk` connector: unsigned inbound (the balancer is the only way in here), signed replies out to `receiver`. */
export const deskConnector = (receiver: Receiver) => ({
  name: 'desk',
  type: 'webhook',
  allow_unsigned: true,
  outbound_url: receiver.url,
  outbound_secret: OUTBOUND_SECRET,
  timeout_ms: 2_000,
});

export const startReplyReceiver = () => startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));

export interface Traffic {
  /** Per thread key, the customer messages accepted (202), in the order sent. */
  sent: Map<string, string[]>;
  /** Per thread key, the agent replies written in the platform, in order. */
  replies: Map<string, string[]>;
  /** Each reply's message id on the platform (the id its webhook carries). */
  replyIds: Map<string, string>;
  /** Stops sending and resolves when every sender has finished its message in hand. */
  stop(): Promise<void>;
}

/** POSTs until the gateway answers 202 (502 from the balancer, 503 while the database is away, a reset: again). */
async function postUntilAccepted(url: string, body: unknown): Promise<void> {
  const deadline = Date.now() + 120_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.status === 202) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${url} did not accept a message within 120 s; last: ${last}`);
}

async function chatOf(db: pg.Pool | pg.Client, threadKey: string): Promise<string | undefined> {
  const { rows } = await db.query<{ chat_id: string | null }>("select chat_id from threads where connector = 'desk' and thread_key = $1", [threadKey]);
  return rows[0]?.chat_id ?? undefined;
}

/**
 * `threads` customers each send a message every `everyMs`, and an agent answers
 * in each thread's chat every `2 * everyMs` once the chat exists, until stopped.
 */
export async function startTraffic(cluster: ReplicaCluster, options: { threads: number; everyMs: number }): Promise<Traffic> {
  // A pool: the database may be restarted under it, and a dropped connection is replaced on the next query.
  const db = new pg.Pool({ connectionString: cluster.storeUrl, max: 2 });
  db.on('error', () => {});
  let stopping = false;
  const sent = new Map<string, string[]>();
  const replies = new Map<string, string[]>();
  const replyIds = new Map<string, string>();
  const customer = async (key: string) => {
    const list: string[] = [];
    sent.set(key, list);
    for (let n = 1; !stopping; n++) {
      const text = `${key} message ${n}`;
      await postUntilAccepted(`${cluster.balancer.url}/connectors/desk/messages`, {
        thread_id: key,
        messages: [{ message_id: `${key}-m${n}`, sender_id: `${key}@customer.test`, body: text }],
      });
      list.push(text);
      await sleep(options.everyMs);
    }
  };
  const agent = async (key: string) => {
    const list: string[] = [];
    replies.set(key, list);
    let chatId: string | undefined;
    for (let n = 1; !stopping; ) {
      if (chatId === undefined) {
        chatId = await chatOf(db, key).catch(() => undefined);
      } else {
        const text = `${key} reply ${n}`;
        const res = await cluster.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text });
        if (res.status !== 201) throw new Error(`the sandbox refused an agent message: ${res.status} ${res.text}`);
        list.push(text);
        replyIds.set(text, (res.body as { id: string }).id);
        n++;
      }
      await sleep(2 * options.everyMs);
    }
  };
  const keys = Array.from({ length: options.threads }, (_, i) => `case-${i + 1}`);
  const running = [...keys.map(customer), ...keys.map(agent)];
  return {
    sent,
    replies,
    replyIds,
    async stop() {
      stopping = true;
      await Promise.all(running);
      await db.end();
    },
  };
}

/** The customer messages of `desk`'s threads as the platform holds them, per thread key, oldest first. */
export async function platformTexts(cluster: ReplicaCluster, keys: Iterable<string>): Promise<Map<string, string[]>> {
  const db = new pg.Client({ connectionString: cluster.storeUrl });
  await db.connect();
  try {
    const out = new Map<string, string[]>();
    for (const key of keys) {
      const chatId = await chatOf(db, key);
      if (chatId === undefined) {
        out.set(key, []);
        continue;
      }
      const all = (await cluster.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; sender_type: string; message: string }[];
      out.set(key, all.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').map((m) => m.message));
    }
    return out;
  } finally {
    await db.end();
  }
}

/** The replies `receiver` got, per thread key (`desk:<key>` in the payload), in arrival order. */
export function receivedReplies(receiver: Receiver): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const request of receiver.requests) {
    if (!request.verified.ok) throw new Error(`a reply arrived unverified: ${request.verified.reason}`);
    const payload = request.verified.payload as { thread_id: string; message: { message: string } };
    const key = payload.thread_id.replace(/^desk:/, '');
    out.set(key, [...(out.get(key) ?? []), payload.message.message]);
  }
  return out;
}

/** `texts` with repeats removed (first occurrence kept), and how many repeats there were. */
export function firstOccurrences(texts: readonly string[]): { order: string[]; repeats: number } {
  const order = [...new Set(texts)];
  return { order, repeats: texts.length - order.length };
}

/** Waits until every thread's list in `got()` holds every text of `want` (repeats allowed). */
export async function untilAllArrived(want: Map<string, string[]>, got: () => Promise<Map<string, string[]>>, timeoutMs: number, what: string): Promise<void> {
  await until(
    async () => {
      const now = await got();
      return [...want].every(([key, texts]) => {
        const have = new Set(now.get(key) ?? []);
        return texts.every((t) => have.has(t));
      });
    },
    timeoutMs,
    what,
  );
}

interface WebhookAttempt {
  event_id: string;
  status: number | null;
  started_at: string;
  duration_ms: number;
}

/**
 * Pairs of replies delivered out of order where order was owed, and how many
 * pairs owed an order. The platform sends each reply's webhook on its own
 * and retries each on its own schedule, so two replies whose webhooks were in flight together have no order; but a
 * reply whose webhook the gateway had answered 2xx before the platform started sending the other's (its first
 * attempt) must be delivered first. Judged from the platform's record of webhook attempts (wall-clock start and
 * duration).
 */
export async function orderViolations(cluster: ReplicaCluster, traffic: Traffic, delivered: Map<string, string[]>): Promise<{ owed: number; violations: string[] }> {
  const attempts = (await cluster.sandbox.call('GET', '/_sandbox/webhook_attempts')).body.results as WebhookAttempt[];
  // A webhook's first attempt, whatever its answer: one the gateway answered 5xx may still have been stored (a commit
  // whose answer the database restart cut off), and the platform's retry is then a duplicate. So the other reply's
  // sending starts at its first attempt, and a reply is accepted at the end of its first 2xx attempt.
  const firstSent = new Map<string, number>();
  const accepted = new Map<string, number>();
  for (const a of attempts) {
    const start = Date.parse(a.started_at);
    firstSent.set(a.event_id, Math.min(start, firstSent.get(a.event_id) ?? Infinity));
    if (a.status === null || a.status < 200 || a.status > 299) continue;
    accepted.set(a.event_id, Math.min(start + a.duration_ms, accepted.get(a.event_id) ?? Infinity));
  }
  const violations: string[] = [];
  let owed = 0;
  for (const [key, texts] of traffic.replies) {
    const position = new Map(firstOccurrences(delivered.get(key) ?? []).order.map((t, i) => [t, i]));
    for (const a of texts) {
      for (const b of texts) {
        const acceptedA = accepted.get(traffic.replyIds.get(a)!);
        const sentB = firstSent.get(traffic.replyIds.get(b)!);
        if (acceptedA === undefined || sentB === undefined || acceptedA >= sentB) continue;
        owed += 1;
        if ((position.get(a) ?? -1) > (position.get(b) ?? -1)) violations.push(`"${a}" was accepted before "${b}" was sent, but delivered after it`);
      }
    }
  }
  return { owed, violations };
}
