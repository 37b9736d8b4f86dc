/**
 * `threadgate webhooks sign --secret S [--timestamp T] < body`: the headers
 * the platform (or, with `--scheme standard`, the bundled webhook connector)
 * would send with that body. `threadgate webhooks verify --secret S --header
 * 'Name: value'… < body`: `valid` (exit 0), or why not (exit 1) — checked by
 * the gateway's own verifiers (webhook-signing-cli.ts). The platform's scheme
 * follows `platform.signature` of the settings unless `--payload` /
 * `--tolerance` say otherwise. The secret is never printed.
 */
import { ThreadgateError } from '../base/errors.ts';
import { loadSettings, requireRead } from '../config/load.ts';
import { DEFAULT_TOLERANCE_SECONDS, type SignaturePayload } from '../platform/signature.ts';
import { configOption, oneOf, parse, subcommandError } from './args.ts';
import { UsageError } from './errors.ts';
import { commandHelp, configHelp, pick, usageLines, type OptionHelp } from './help.ts';
import { printJson } from './table.ts';
import {
  newWebhookId,
  platformHeaders,
  SCHEMES,
  STANDARD_TOLERANCE_SECONDS,
  standardHeaders,
  standardSecretProblem,
  verifyPlatform,
  verifyStandard,
  type Scheme,
  type Verdict,
} from './webhook-signing-cli.ts';

const PAYLOADS = ['timestamp.body', 'body'] as const;

export const OPTIONS = {
  ...configOption,
  secret: { type: 'string' },
  scheme: { type: 'string', default: 'platform' },
  payload: { type: 'string' },
  timestamp: { type: 'string' },
  id: { type: 'string' },
  header: { type: 'string', multiple: true },
  tolerance: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const DESCRIBE = {
  config: { ...configHelp.config, text: 'the settings file, whose platform.signature the platform scheme follows', default: '$THREADGATE_CONFIG, else none: every default' },
  secret: { value: 'S', text: 'the webhook secret: the channel configuration\'s (platform), or the connector\'s whsec_… (standard); never printed' },
  scheme: { value: 'platform|standard', text: 'platform: X-Svc-Signature and X-Svc-Timestamp; standard: the webhook connector\'s Standard Webhooks headers' },
  payload: { value: 'timestamp.body|body', text: 'what the platform signs (platform scheme)', default: 'platform.signature.payload of the settings, else timestamp.body' },
  timestamp: { value: 'T', text: 'the signing time in Unix seconds', default: 'now' },
  id: { value: 'ID', text: 'the webhook-id (standard scheme; the receiver dedups on it)', default: 'a fresh msg_…' },
  header: { value: 'LINE', text: "a header as received, 'Name: value' (names in any case; repeatable)" },
  tolerance: { value: 'SECONDS', text: 'how far from now the timestamp may lie (platform scheme; the connector\'s is a fixed 300 s)', default: 'platform.signature.tolerance_seconds of the settings, else 300' },
  json: { text: 'print a JSON object instead' },
} satisfies Record<keyof typeof OPTIONS, OptionHelp>;

const SIGN_OPTIONS = pick(OPTIONS, 'config', 'secret', 'scheme', 'payload', 'timestamp', 'id', 'json');
const VERIFY_OPTIONS = pick(OPTIONS, 'config', 'secret', 'scheme', 'payload', 'header', 'tolerance', 'json');

export const HELP = [
  commandHelp({
    name: 'webhooks sign',
    summary: 'the signature headers the platform (or the webhook connector) would send with the body on standard input',
    usage: [
      'webhooks sign --secret S [--timestamp T] [--payload timestamp.body|body] [--json] < body',
      'webhooks sign --scheme standard --secret whsec_… [--id ID] [--timestamp T] [--json] < body',
    ],
    notes: ['The body is read from standard input as bytes, exactly as sent; one "Name: value" line per header.'],
    options: SIGN_OPTIONS,
    describe: pick(DESCRIBE, 'config', 'secret', 'scheme', 'payload', 'timestamp', 'id', 'json'),
    examples: [
      'webhooks sign --secret "$WEBHOOK_SECRET" < event.json',
      'webhooks sign --scheme standard --secret "$PARTNER_INBOUND_SECRET" --id msg_1 < batch.json',
    ],
  }),
  commandHelp({
    name: 'webhooks verify',
    summary: "check a webhook's signature headers with the gateway's own verifier: prints valid (exit 0), or why not (exit 1)",
    usage: [
      "webhooks verify --secret S --header 'Name: value'… [--tolerance SECONDS] [--payload timestamp.body|body] [--json] < body",
      "webhooks verify --scheme standard --secret whsec_… --header 'Name: value'… [--json] < body",
    ],
    notes: ['Refusals: signature mismatch, timestamp outside the tolerance (by how much), header missing or malformed, secret in the wrong form.'],
    options: VERIFY_OPTIONS,
    describe: pick(DESCRIBE, 'config', 'secret', 'scheme', 'payload', 'header', 'tolerance', 'json'),
    examples: [
      "webhooks verify --secret \"$WEBHOOK_SECRET\" --header 'X-Svc-Signature: sha256=…' --header 'X-Svc-Timestamp: 1767225600' < event.json",
      "webhooks verify --scheme standard --secret \"$PARTNER_INBOUND_SECRET\" --header 'webhook-id: msg_1' --header 'webhook-timestamp: 1767225600' --header 'webhook-signature: v1,…' < batch.json",
    ],
  }),
];

const USAGE = usageLines(HELP);

/** A --secret the chosen scheme cannot sign with (exit 1); the message never repeats it. */
export class WebhookSecretFormError extends ThreadgateError {
  readonly code = 'TG_SECRET_MALFORMED';
}

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

export async function webhooksCommand(argv: string[], input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const [verb, ...rest] = positionals;
  if (verb !== 'sign' && verb !== 'verify') throw subcommandError('webhooks', ['sign', 'verify'], verb, USAGE);
  if (rest.length > 0) throw new UsageError(`webhooks ${verb} takes no arguments (the body comes on standard input), got "${rest.join(' ')}"`, { usage: USAGE });
  const strays = verb === 'sign' ? (['header', 'tolerance'] as const) : (['timestamp', 'id'] as const);
  const stray = strays.find((k) => values[k] !== undefined);
  if (stray) throw new UsageError(`--${stray} does not go with webhooks ${verb}`, { usage: USAGE });
  if (values.secret === undefined || values.secret === '') throw new UsageError(`webhooks ${verb} needs --secret S (the webhook secret to ${verb} with)`, { usage: USAGE });
  const scheme = values.scheme as Scheme;
  if (!SCHEMES.includes(scheme)) throw new UsageError(`unknown --scheme "${values.scheme}": it takes ${oneOf(SCHEMES)}`);
  if (scheme === 'standard') {
    const platformOnly = (['payload', 'tolerance'] as const).find((k) => values[k] !== undefined);
    if (platformOnly === 'payload') throw new UsageError('--payload is of the platform scheme: Standard Webhooks sign "<id>.<timestamp>.<body>"');
    if (platformOnly === 'tolerance') throw new UsageError(`--tolerance is of the platform scheme: the webhook connector accepts a fixed ${STANDARD_TOLERANCE_SECONDS} s either way`);
  } else if (values.id !== undefined) {
    throw new UsageError('--id goes with --scheme standard (the platform scheme has no webhook id)');
  }

  if (verb === 'sign') {
    const timestamp = values.timestamp === undefined ? Math.floor(Date.now() / 1000) : unixSeconds(values.timestamp);
    if (scheme === 'standard') {
      const problem = standardSecretProblem(values.secret);
      if (problem !== undefined) throw new WebhookSecretFormError(`--secret is not in the form the webhook connector takes: ${problem}`);
    }
    const payload = scheme === 'platform' ? signature(values, verb).payload : undefined;
    const body = await readBody(input);
    const lines = payload !== undefined
      ? platformHeaders(values.secret, body, timestamp, payload)
      : standardHeaders(values.secret, body, timestamp, values.id ?? newWebhookId());
    if (values.json) printJson(Object.fromEntries(lines));
    else for (const [name, value] of lines) process.stdout.write(`${name}: ${value}\n`);
    return 0;
  }

  const headers = parseHeaders(values.header ?? []);
  const settings = scheme === 'platform' ? signature(values, verb) : undefined;
  const body = await readBody(input);
  const request = { secret: values.secret, body, headers, nowMs: Date.now() };
  const verdict: Verdict = settings ? verifyPlatform({ ...request, ...settings }) : verifyStandard(request);
  if (values.json) printJson(verdict);
  else process.stdout.write(verdict.valid ? 'valid\n' : `invalid: ${verdict.code}: ${verdict.reason}\n`);
  return verdict.valid ? 0 : 1;
}

/** The platform scheme's payload and tolerance: the options, else the settings' `platform.signature` (the receiver's). */
function signature(values: Values, verb: 'sign' | 'verify'): { payload: SignaturePayload; toleranceSeconds: number } {
  const given = values.payload;
  if (given !== undefined && !(PAYLOADS as readonly string[]).includes(given)) throw new UsageError(`--payload takes ${oneOf(PAYLOADS)}, got "${given}"`);
  const tolerance = values.tolerance === undefined ? undefined : toleranceSeconds(values.tolerance);
  let settings: { payload: SignaturePayload; tolerance_seconds: number } | undefined;
  if (given === undefined || (verb === 'verify' && tolerance === undefined)) {
    const loaded = loadSettings({ path: values.config, needs: ['platform.signature'] });
    requireRead(loaded, ['platform.signature']);
    settings = loaded.settings.platform.signature;
  }
  return {
    payload: (given as SignaturePayload | undefined) ?? settings?.payload ?? 'timestamp.body',
    toleranceSeconds: tolerance ?? settings?.tolerance_seconds ?? DEFAULT_TOLERANCE_SECONDS,
  };
}

function unixSeconds(value: string): number {
  if (!/^\d{1,12}$/.test(value)) throw new UsageError(`--timestamp takes Unix seconds (e.g. ${Math.floor(Date.now() / 1000)}), got "${value}"`);
  return Number(value);
}

function toleranceSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 86_400) throw new UsageError(`--tolerance takes whole seconds from 1 to 86400, got "${value}"`);
  return n;
}

/** `Name: value` lines, by lower-case name. Neither a value nor the line is repeated in an error (either might be secret). */
function parseHeaders(given: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>();
  given.forEach((line, i) => {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header number ${i + 1} is not "Name: value" (a header name, a colon, its value)`, { usage: USAGE });
    }
    if (headers.has(name.toLowerCase())) throw new UsageError(`--header ${name} is given twice`);
    headers.set(name.toLowerCase(), line.slice(colon + 1).trim());
  });
  return headers;
}

/** The body: standard input's bytes, exactly; refused when standard input is a terminal (nothing was piped). */
async function readBody(input: NodeJS.ReadableStream & { isTTY?: boolean }): Promise<Buffer> {
  if (input.isTTY) throw new UsageError('the body comes on standard input, which is a terminal: add < body.json (or pipe it in)', { usage: USAGE });
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
