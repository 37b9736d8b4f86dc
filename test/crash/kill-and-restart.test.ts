/**
 * Crash safety. A gateway child process is killed with SIGKILL at random
 * moments (the first while inbound requests are in flight) and started again
 * on the same store, while 500 inbound messages (50
 * threads × 10) come in through the webhook connector and 500 agent replies
 * go out through it. At the end every inbound message is in the platform and
 * every reply reached the customer's server: none lost. Duplicates are counted
 * and reported; the platform's API has no idempotency key, so a kill between
 * its accepting a POST and our commit can double that batch (docs/decisions/duplicate-window.md).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startTestSandbox } from '../sandbox/support.ts';
import { freePort } from '../support/ports.ts';
import { sleep, until } from '../support/wait.ts';
import { startCli, type LongRunning } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { INBOUND_SECRET, OUTBOUND_SECRET } from '../connectors/webhook/fixtures.ts';
import { startReceiver, type Receiver } from '../connectors/webhook/receiver.ts';

const THREADS = 50;
const PER_THREAD = 10;
const KILLS = 6;
/** Random time a gateway lives before it is killed. */
const LIFE_MS = [600, 1_600] as const;
/** The flows are paced to span the kills: ~9 s of inbound rounds, ~10 s of replies. */
const INBOUND_ROUND_GAP_MS = 900;
const REPLY_GAP_MS = 20;

let receiver: Receiver | undefined;
afterEach(async () => receiver?.close());

const between = ([lo, hi]: readonly [number, number]) => lo + Math.random() * (hi - lo);

/** POSTs until the gateway answers 202 (it may be down, or die mid-request): what an upstream system does. */
async function sendUntilAccepted(url: string, threadId: string, messageId: string): Promise<number> {
  const raw = JSON.stringify({ thread_id: threadId, messages: [{ message_id: messageId, sender_id: `${threadId}@example.com`, body: `body of ${messageId}` }] });
  for (let tries = 1; ; tries++) {
    const at = new Date();
    const id = `msg_${messageId}_${tries}`;
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(INBOUND_SECRET).sign(id, at, raw),
    };
    try {
      const res = await request(`${url}/connectors/hook/messages`, { method: 'POST', headers, body: raw, headersTimeout: 3_000, bodyTimeout: 3_000 });
      await res.body.text();
      if (res.statusCode === 202) return tries;
    } catch {
      // down or killed mid-request: try again
    }
    await sleep(50);
  }
}

describe('SIGKILL at random points', () => {
  it('loses no inbound message and no reply across repeated kills and restarts', { timeout: 240_000 }, async () => {
    const sandbox = await startTestSandbox({ retryBaseMs: 50 });
    receiver = await startReceiver(OUTBOUND_SECRET, () => ({ status: 200 }));
    const dir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(
      file,
      stringify({
        platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
        server: { port, public_url: url, shutdown_timeout_ms: 2_000 },
        store: { path: 'crash.db' },
        log: { level: 'warn' },
        jobs: { max_attempts: 100, platform_max_attempts: 100, lease_seconds: 2 },
        connectors: [
          {
            name: 'hook', type: 'webhook', room_id: sandbox.roomId, max_retry_count: 12,
            inbound_secret: INBOUND_SECRET, outbound_url: receiver.url, outbound_secret: OUTBOUND_SECRET,
          },
        ],
      }),
    );

    let current: LongRunning | undefined;
    onTestFinished(async () => {
      if (current && current.child.exitCode === null) {
        current.child.kill('SIGTERM');
        await current.exited;
      }
    });
    // Logs are at warn, so readiness is seen by polling /readyz.
    const ready = () => until(async () => {
      try {
        return (await request(`${url}/readyz`)).statusCode === 200;
      } catch {
        return false;
      }
    }, 15_000, 'the gateway to be ready');
    current = startCli(['serve', '--config', file]);
    await ready();

    let kills = 0;
    // The first kill lands while an inbound round is in flight, so that some POSTs meet a dead gateway whatever the
    // random timings (six kills at random moments could all fall between rounds); the others at random moments.
    let roundInFlight = () => {};
    const aRoundInFlight = new Promise<void>((resolve) => (roundInFlight = resolve));
    // All the kills happen, also when the flows finish first (a fast run): the last restarts then find work still draining.
    const killer = (async () => {
      while (kills < KILLS) {
        await (kills === 0 ? aRoundInFlight : sleep(between(LIFE_MS)));
        current!.child.kill('SIGKILL');
        await current!.exited;
        kills += 1;
        current = startCli(['serve', '--config', file]);
        await ready();
      }
    })();

    const threadIds = Array.from({ length: THREADS }, (_, t) => `t-${t}`);
    const inbound = (async () => {
      let tries = 0;
      for (let i = 0; i < PER_THREAD; i++) {
        const round = Promise.all(threadIds.map((t) => sendUntilAccepted(url, t, `${t}-m${i}`)));
        if (i === 1) roundInFlight();
        const results = await round;
        tries += results.reduce((a, b) => a + b, 0);
        await sleep(INBOUND_ROUND_GAP_MS);
      }
      return tries;
    })();

    const replies = (async () => {
      let sent = 0;
      for (const t of threadIds) {
        let chatId: string | undefined;
        await until(async () => {
          const chats = (await sandbox.call('GET', `/_sandbox/chats?thread_id=${encodeURIComponent(`hook:${t}`)}`)).body.results as { chat: { id: string } }[];
          chatId = chats[0]?.chat.id;
          return chatId !== undefined;
        }, 120_000, `the chat of ${t}`);
        for (let i = 0; i < PER_THREAD; i++) {
          const res = await sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: `reply ${i} to ${t}` });
          expect(res.status).toBeLessThan(300);
          sent += 1;
          await sleep(REPLY_GAP_MS);
        }
      }
      return sent;
    })();

    const inboundTries = await inbound;
    expect(await replies).toBe(THREADS * PER_THREAD);

    // Every inbound message in the platform, every reply at the customer's server.
    const platformCounts = async () => {
      const counts = new Map<string, number>();
      const chats = (await sandbox.call('GET', '/_sandbox/chats')).body.results as { chat: { id: string } }[];
      for (const { chat } of chats) {
        const messages = (await sandbox.call('GET', `/_sandbox/chats/${chat.id}/messages`)).body.results as { sender_type: string; type: string; message_id: string | null }[];
        for (const m of messages) if (m.type === 'msg' && m.sender_type === 'visitor' && m.message_id) counts.set(m.message_id, (counts.get(m.message_id) ?? 0) + 1);
      }
      return counts;
    };
    const replyCounts = () => {
      const counts = new Map<string, number>();
      for (const r of receiver!.requests) {
        if (!r.verified.ok) continue;
        const id = ((r.verified.payload as { message?: { id?: string } }).message?.id) ?? '';
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    };
    await killer;
    await until(async () => (await platformCounts()).size === THREADS * PER_THREAD && replyCounts().size === THREADS * PER_THREAD, 120_000, 'every message and reply');

    const inboundCounts = await platformCounts();
    const outboundCounts = replyCounts();
    const doubledIn = [...inboundCounts.values()].filter((n) => n > 1).length;
    const doubledOut = [...outboundCounts.values()].filter((n) => n > 1).length;
    const unverified = receiver.requests.filter((r) => !r.verified.ok).length;
    console.log(
      `crash test: ${kills} SIGKILLs; inbound ${inboundCounts.size}/${THREADS * PER_THREAD} present after ${inboundTries} POSTs, ` +
        `${doubledIn} posted twice; replies ${outboundCounts.size}/${THREADS * PER_THREAD} delivered in ${receiver.requests.length} requests, ` +
        `${doubledOut} sent twice (same webhook-id); ${unverified} unverified`,
    );
    expect(kills).toBe(KILLS);
    expect(inboundTries).toBeGreaterThan(THREADS * PER_THREAD); // some POSTs met a dead gateway: the kills overlapped the flow
    expect(unverified).toBe(0);
    for (const t of threadIds) for (let i = 0; i < PER_THREAD; i++) expect(inboundCounts.get(`${t}-m${i}`) ?? 0).toBeGreaterThanOrEqual(1);
    // A double can only come from a kill while a POST was in flight: at most one batch per running
    // job (4 at once), and a thread's batch here holds at most its PER_THREAD messages.
    expect(doubledIn).toBeLessThanOrEqual(kills * 4 * PER_THREAD);
    expect(doubledOut).toBeLessThanOrEqual(kills * 4);
  });
});
