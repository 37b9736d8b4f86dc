/**
 * The suite every connector must pass (`threadgate/testing`), after
 * Airbyte's connector acceptance tests and Singer's tap-tester: one list of
 * checks, run by a connector's own tests (`for (const c of connectorContract(def, o)) it(c.name, c.run)`)
 * or from the command line (`threadgate connector test <module>`).
 *
 * 1. its settings schema takes the given settings, and refuses an unknown key naming it;
 * 2. `create`, `start` (and `poll`, a moment) and `stop` start and release everything:
 *    `stop` resolves within the shutdown timeout and leaves no handle open;
 * 3. each route answers an empty, a malformed and an unsigned request with a 4xx, never
 *    a 5xx, and submits nothing;
 * 4. `deliver` of the same event twice (the second with `attempt: 2`) gives one external
 *    effect, when the connector declares idempotent delivery;
 * 5. `health` has the documented shape;
 * 6. no configured secret appears in any log line it wrote.
 */
import type { ConnectorDefinition, ConnectorInstance, WebhookEvent } from '../api.ts';
import { messageCreated } from './events.ts';
import { recordingContext, type RecordingContext } from './recording-context.ts';
import { fail, secretsOf, watchResources, withinMs, type SettingsSecret } from './contract-support.ts';

export interface ContractOptions {
  /** The connector's own settings keys, as in its settings entry (without name, type, room_id, module). */
  settings: Readonly<Record<string, unknown>>;
  /** Values that must never be logged; default: every string under a key that names a secret, password, token or key. */
  secrets?: readonly SettingsSecret[];
  /** The connector's name in the checks. Default `contract`. */
  name?: string;
  /** How long `stop` may take (the gateway's `server.shutdown_timeout_ms`). Default 10 000. */
  stopWithinMs?: number;
  /** How long `poll` runs before the stop, for a poller. Default 300 ms. */
  pollForMs?: number;
  /**
   * The connector declares that delivering an event again (a retry) has no second effect: `effects` counts what
   * the external system holds (notes, mails, requests with distinct ids) so the check can see it.
   */
  idempotent?: {
    effects(): number | Promise<number>;
    /** The thread the event is delivered to (a key the connector maps to something real: a ticket). Default `contract-thread`. */
    threadKey?: string;
    /** Default: an agent's message in that thread. */
    event?: WebhookEvent;
  };
}

export interface ContractCheck {
  name: string;
  /** Resolves when the check passes (with `skipped` when it does not apply); rejects with the reason when it fails. */
  run(): Promise<void | { skipped: string }>;
}

export function connectorContract(definition: ConnectorDefinition, options: ContractOptions): ContractCheck[] {
  const name = options.name ?? 'contract';
  const stopWithinMs = options.stopWithinMs ?? 10_000;
  /** The contexts of every instance the checks made, for the log check. */
  const contexts: RecordingContext[] = [];

  const configOf = (): unknown => {
    const parsed = definition.configSchema.safeParse(options.settings);
    if (!parsed.success) fail(`its settings schema refuses the settings given: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; ')}`);
    return parsed.data;
  };
  /** A created and started instance, and a stop that the check must call. */
  const started = async (): Promise<{ ctx: RecordingContext; instance: ConnectorInstance; stop: () => Promise<void> }> => {
    const ctx = recordingContext({ name });
    contexts.push(ctx);
    const instance = await definition.create(configOf() as never, ctx);
    const abort = new AbortController();
    await instance.start(abort.signal);
    const polling = instance.poll?.({ signal: abort.signal, state: ctx.state }).catch((err: unknown) => ctx.logger.error({ err }, 'poll failed'));
    return {
      ctx,
      instance,
      stop: async () => {
        abort.abort();
        await withinMs(stopWithinMs, (async () => {
          await polling;
          await instance.stop();
        })(), `stop (with the poll ended) did not resolve within ${stopWithinMs} ms`);
      },
    };
  };

  return [
    {
      name: 'its settings schema takes the settings given and refuses an unknown key, naming it',
      async run() {
        configOf();
        const key = 'no_such_key_of_the_contract';
        const parsed = definition.configSchema.safeParse({ ...options.settings, [key]: true });
        if (parsed.success) fail(`an unknown key "${key}" was accepted: use z.strictObject, so a typo in the settings is refused`);
        const named = parsed.error.issues.some((i) => i.path.includes(key) || ('keys' in i && (i.keys as unknown[]).includes(key)) || i.message.includes(key));
        if (!named) fail(`the problem does not name the unknown key "${key}": ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      },
    },
    {
      name: `create, start and stop start and release everything; stop resolves within ${stopWithinMs} ms`,
      async run() {
        const watch = watchResources();
        const { instance, stop } = await started();
        if (instance.poll) await new Promise((r) => setTimeout(r, options.pollForMs ?? 300));
        await stop();
        const left = await watch.left();
        if (left.length > 0) fail(`after stop these stay open: ${left.join(', ')} (close sockets, timers and clients in stop)`);
      },
    },
    {
      name: 'each route answers an empty, a malformed and an unsigned request with a 4xx, never a 5xx, and submits nothing',
      async run() {
        const { ctx, stop } = await started();
        try {
          const routes = ctx.registeredRoutes();
          const problems: string[] = [];
          for (const { method, path } of routes) {
            const concrete = path.replace(/:[^/]+/g, 'contract-param');
            const tries: [string, Parameters<RecordingContext['request']>[2]][] = [
              ['an empty request', {}],
              ['malformed JSON', { body: '{"thread', headers: { 'content-type': 'application/json' } }],
              ['an unsigned JSON body', { body: { thread_id: 'T-1', messages: [{ message_id: 'm-1', sender_id: 'x', body: 'hi' }] } }],
            ];
            for (const [what, request] of tries) {
              const answer = await ctx.request(method, concrete, request);
              if (answer.status < 400 || answer.status > 499) problems.push(`${method} ${path} answered ${what} with ${answer.status}`);
            }
          }
          if (ctx.submits.length > 0) problems.push(`it submitted ${ctx.submits.length} message(s) from such requests`);
          if (problems.length > 0) fail(problems.join('; '));
        } finally {
          await stop();
        }
      },
    },
    {
      name: 'deliver of the same event twice (the second a retry) gives one external effect',
      async run() {
        const idempotent = options.idempotent;
        if (idempotent === undefined) return { skipped: 'the connector does not declare idempotent delivery (options.idempotent)' };
        const { ctx, instance, stop } = await started();
        try {
          const thread = await ctx.threads.attach(idempotent.threadKey ?? 'contract-thread', []);
          const event = idempotent.event ?? messageCreated({ threadId: thread.threadId, text: 'The contract delivers this twice' });
          const before = await idempotent.effects();
          await instance.deliver(event, thread, { signal: new AbortController().signal, attempt: 1 });
          await instance.deliver(event, thread, { signal: new AbortController().signal, attempt: 2 });
          const made = (await idempotent.effects()) - before;
          if (made !== 1) fail(`two deliveries of one event made ${made} external effect(s), not 1`);
        } finally {
          await stop();
        }
      },
    },
    {
      name: 'health has the documented shape: { ok: boolean, details?: object }',
      async run() {
        const { instance, stop } = await started();
        try {
          if (instance.health === undefined) return { skipped: 'the connector has no health()' };
          const health: unknown = await instance.health();
          const h = health as { ok?: unknown; details?: unknown };
          if (typeof health !== 'object' || health === null || typeof h.ok !== 'boolean') fail(`health answered ${JSON.stringify(health)}: it needs ok, a boolean`);
          if (h.details !== undefined && (typeof h.details !== 'object' || h.details === null || Array.isArray(h.details))) fail('health details must be an object');
          JSON.stringify(health); // the admin page and /readyz serialise it
        } finally {
          await stop();
        }
      },
    },
    {
      name: 'no configured secret appears in any log line (run last)',
      async run() {
        const secrets = options.secrets ?? secretsOf(options.settings);
        const leaked = secrets.filter((secret) => contexts.some((ctx) => ctx.rawLog().includes(secret.value)));
        if (leaked.length > 0) fail(`a log line holds the value of ${leaked.map((s) => s.path).join(', ')}`);
        if (contexts.length === 0) fail('no other check ran before this one: run the checks in their order');
      },
    },
  ];
}
