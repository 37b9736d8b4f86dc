/**
 * Human log output (`log.format: pretty`, `serve --pretty`): one line per
 * event for people reading logs live —
 *
 *   2026-05-01T10:00:00.123Z WARN  [mail] mailbox connection failed err.message="IMAP authentication failed: …" failures=1
 *
 * time, level, connector (else the gateway part, `room`), message, then the
 * remaining fields as key=value; nested objects flattened to dotted keys.
 * An error's stack (`err.stack`, and its causes') is left out unless the
 * level is debug or trace: a retry that fails every few seconds is one short
 * line, its message and code, not a trace of the libraries it went through.
 *
 * It is a pino destination in the same thread, not a transport: each JSON
 * line pino has written — after the root logger's redaction of fields and
 * of credentials in query strings — is parsed and rewritten here, so pretty
 * output shows exactly what the JSON line would, secrets already replaced.
 */
import { pino, type DestinationStream } from 'pino';

/** Fields of every line that the columns show, or that say nothing (the service is always threadgate). */
const OMITTED = new Set(['time', 'level', 'msg', 'service', 'pid', 'hostname']);

/** A bare value: no white space, quotes, `=`, backslashes or control characters. */
const BARE = /^[^\s"=\\\u0000-\u001f\u007f]+$/;

function levelLabel(level: unknown): string {
  const label = typeof level === 'number' ? pino.levels.labels[level] : typeof level === 'string' ? level : undefined;
  return (label ?? String(level)).toUpperCase().padEnd(5);
}

/** Line breaks and other control characters written as JSON escapes: an event stays one line. */
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value !== '' && BARE.test(value) ? value : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** `key=value` pairs of `value`, objects flattened to dotted keys (arrays and empty objects stay JSON); stacks only when asked. */
function pairs(key: string, value: unknown, out: string[], stacks: boolean): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) if (stacks || k !== 'stack') pairs(`${key}.${k}`, v, out, stacks);
    return;
  }
  out.push(`${key}=${valueText(value)}`);
}

/**
 * One pretty line (with its line break) of one JSON log line; a line that is not a JSON object is kept as it is.
 * `stacks`: keep errors' stacks (nested `stack` keys), as at debug and trace.
 */
export function prettyLine(jsonLine: string, stacks = false): string {
  let event: unknown;
  try {
    event = JSON.parse(jsonLine);
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return `${jsonLine.trimEnd()}\n`;
  const fields = event as Record<string, unknown>;
  const source = typeof fields.connector === 'string' ? 'connector' : typeof fields.room === 'string' ? 'room' : undefined;
  const head = [
    typeof fields.time === 'string' ? fields.time : new Date(typeof fields.time === 'number' ? fields.time : Date.now()).toISOString(),
    levelLabel(fields.level),
    source === undefined ? '-' : `[${oneLine(String(fields[source]))}]`,
  ];
  const rest: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (!OMITTED.has(key) && key !== source && value !== undefined) pairs(key, value, rest, stacks);
  }
  const message = typeof fields.msg === 'string' && fields.msg !== '' ? oneLine(fields.msg) : undefined;
  return `${[...head, ...(message === undefined ? [] : [message]), ...rest].join(' ')}\n`;
}

type Flushable = DestinationStream & { flush?: (cb?: (err?: Error) => void) => void; flushSync?: () => void };

/**
 * A destination that writes each line pino gives it as a pretty line to
 * `out` (default: standard output, as pino's own default destination),
 * synchronously in the caller's thread; flush goes through to `out`.
 * `stacks`: keep errors' stacks (the logger's level is debug or trace).
 */
export function prettyDestination(out: DestinationStream = pino.destination(1), stacks = false): DestinationStream {
  const target = out as Flushable;
  const pretty: Flushable = {
    write: (line: string) => target.write(prettyLine(line, stacks)),
  };
  if (typeof target.flush === 'function') pretty.flush = (cb) => target.flush!(cb);
  if (typeof target.flushSync === 'function') pretty.flushSync = () => target.flushSync!();
  return pretty;
}
