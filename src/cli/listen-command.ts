/**
 * `threadgate listen`: what a running gateway receives and sends, one line
 * per event as it happens (`GET /admin/api/events`, the admin token
 * required): platform webhooks at the receiver, connector intake, deliveries,
 * platform posts. `--forward-to URL` also POSTs each platform webhook the
 * gateway took (accepted or duplicate) to URL, re-signed as the platform
 * signs with a listening secret printed at the start — never the connector's
 * live secret — and prints the answer. The gateway's own handling is
 * unchanged. A dropped stream (the gateway restarting) is opened again.
 */
import { randomBytes } from 'node:crypto';
import { LIVE_KINDS, type LiveEvent } from '../base/live-feed.ts';
import { loadSettings } from '../config/load.ts';
import { DEFAULT_TOLERANCE_SECONDS } from '../platform/signature.ts';
import { parse } from './args.ts';
import { ListenRefusedError, UsageError } from './errors.ts';
import { forwardSigned } from './forward.ts';
import { gatewayBaseUrl } from './gateway-address.ts';
import { commandHelp, configHelp } from './help.ts';
import { liveLine } from './live-lines.ts';
import { untilStopped } from './signals.ts';
import { readSse } from './sse-stream.ts';

export const OPTIONS = {
  config: { type: 'string', short: 'c' },
  connector: { type: 'string', multiple: true },
  events: { type: 'string' },
  json: { type: 'boolean' },
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  'forward-to': { type: 'string' },
  secret: { type: 'string' },
} as const;

export const HELP = [
  commandHelp({
    name: 'listen',
    summary: 'what a running gateway receives and sends, one line per event as it happens; --forward-to copies each platform webhook to a local URL',
    usage: ['listen [--connector NAME]… [--events KIND,…] [--json] [--forward-to URL [--secret S]] [--url URL --admin-token T]'],
    options: OPTIONS,
    describe: {
      ...configHelp,
      connector: { value: 'NAME', text: 'only this connector (repeatable)' },
      events: { value: 'LIST', text: `only these kinds (${LIVE_KINDS.join(', ')}) or webhook event types (message_created, reply_suggestion_created), comma-separated` },
      json: { text: 'one JSON object a line (NDJSON), the first describing the session' },
      url: { value: 'URL', text: 'the gateway', default: 'server.host and server.port of the settings' },
      'admin-token': { value: 'T', text: "the gateway's admin token", default: 'server.admin_token of the settings' },
      'forward-to': { value: 'URL', text: 'POST each platform webhook the gateway took to this URL too, re-signed with the listening secret' },
      secret: { value: 'S', text: 'with --forward-to: the listening secret to sign with', default: 'a new one, printed at the start' },
    },
    examples: ['listen', 'listen --connector desk --events webhook,delivery --json', 'listen --forward-to http://127.0.0.1:3000/webhooks/desk'],
    notes: ['Ends on Ctrl-C (exit 0). A reader that falls behind is told how many events it lost; the gateway never waits for it.'],
  }),
];

const RECONNECT_MAX_MS = 10_000;

export async function listenCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`listen takes no arguments, got "${positionals.join(' ')}"`);
  const wanted = (values.events ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const kinds = wanted.filter((w) => (LIVE_KINDS as readonly string[]).includes(w));
  const types = wanted.filter((w) => !kinds.includes(w));
  const bad = types.find((t) => !/^[a-z_]+$/.test(t));
  if (bad !== undefined) throw new UsageError(`--events takes kinds (${LIVE_KINDS.join(', ')}) or event types such as message_created, got "${bad}"`);
  const forwardTo = values['forward-to'];
  if (forwardTo !== undefined && !/^https?:\/\/\S+$/.test(forwardTo)) throw new UsageError(`--forward-to must be an http(s) URL, got "${forwardTo}"`);
  if (values.secret !== undefined && forwardTo === undefined) throw new UsageError('--secret goes with --forward-to');

  const needs = [...(values.url === undefined ? ['server.host', 'server.port'] : []), ...(values['admin-token'] === undefined ? ['server.admin_token'] : []), 'platform.signature'];
  const { settings } = loadSettings({ path: values.config, needs });
  const base = (values.url ?? gatewayBaseUrl(settings)).replace(/\/+$/, '');
  const token = values['admin-token'] ?? settings.server.admin_token;
  if (!token) throw new UsageError('listen reads the admin API: give --admin-token, or set server.admin_token in the settings');
  const secret = values.secret ?? `tgl_${randomBytes(24).toString('base64url')}`;

  const query = new URLSearchParams();
  if (values.connector?.length) query.set('connector', values.connector.join(','));
  const serverKinds = kinds.length > 0 ? kinds : types.length > 0 ? ['webhook', 'delivery'] : [];
  if (serverKinds.length > 0 || forwardTo) query.set('events', [...new Set([...serverKinds, ...(forwardTo && serverKinds.length > 0 ? ['webhook'] : [])])].join(',') || LIVE_KINDS.join(','));
  if (forwardTo) query.set('raw', 'true');
  const streamUrl = `${base}/admin/api/events?${query.toString()}`;
  const shown = (e: LiveEvent) => (kinds.length === 0 || kinds.includes(e.kind) || e.kind === 'gap') && (types.length === 0 || e.kind === 'gap' || types.includes(String(e.event_type)));

  const say = (line: string, json: Record<string, unknown>) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${line}\n`);
  say(
    `listening to ${base}${forwardTo ? `; forwarding platform webhooks to ${forwardTo}, signed with the listening secret ${secret} (X-Svc-Signature, X-Svc-Timestamp)` : ''}; Ctrl-C ends`,
    { kind: 'listening', url: base, ...(forwardTo ? { forward_to: forwardTo, secret, signature_payload: settings.platform.signature.payload, tolerance_seconds: DEFAULT_TOLERANCE_SECONDS } : {}) },
  );

  const onEvent = async (e: LiveEvent) => {
    if (shown(e)) say(liveLine(e), e.raw === undefined ? e : { ...e, raw: undefined });
    if (forwardTo && e.kind === 'webhook' && (e.result === 'accepted' || e.result === 'duplicate') && e.raw) {
      const started = performance.now();
      const body = (e.raw as { body: string }).body;
      const outcome = await forwardSigned(forwardTo, body, secret, settings.platform.signature.payload).then(
        (r) => ({ status: r.status, ms: Math.round(performance.now() - started) }),
        (err: unknown) => ({ error: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message }),
      );
      const line = 'error' in outcome ? `  → ${forwardTo}: ${outcome.error}` : `  → ${forwardTo}: ${outcome.status} in ${outcome.ms} ms`;
      say(line, { kind: 'forwarded', seq: e.seq, to: forwardTo, ...outcome });
    }
  };
  return untilStopped((signal) => stream(streamUrl, token, signal, onEvent, (line) => say(line, { kind: 'reconnecting', reason: line })));
}

/** Reads the stream until `signal`; the first connection must succeed, later drops are opened again with backoff. */
async function stream(url: string, token: string, signal: AbortSignal, onEvent: (e: LiveEvent) => Promise<void>, note: (line: string) => void): Promise<number> {
  let connected = false;
  let wait = 500;
  while (!signal.aborted) {
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal, redirect: 'manual' });
      if (res.status === 401 || res.status === 404 || res.status === 400) {
        const text = await res.text();
        throw new ListenRefusedError(`${url.split('?')[0]} answered ${res.status}${res.status === 401 ? ' (the admin token was refused)' : res.status === 404 ? ' (is the admin API on? it needs server.admin_token)' : ''}: ${text.slice(0, 300)}`);
      }
      if (!res.ok || res.body === null) throw new Error(`answered ${res.status}`);
      connected = true;
      wait = 500;
      await readSse(res.body, async (m) => {
        if (m.event !== 'ready') await onEvent(JSON.parse(m.data) as LiveEvent);
      });
      if (!signal.aborted) note('the stream ended (the gateway stopped?); opening it again');
    } catch (err) {
      if (signal.aborted) break;
      if (err instanceof ListenRefusedError || !connected) throw err instanceof ListenRefusedError ? err : new ListenRefusedError(`cannot reach ${url.split('?')[0]}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
      note(`the stream broke (${(err as Error).message}); opening it again`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, RECONNECT_MAX_MS);
  }
  return 0;
}
