/**
 * What names a Slack conversation and a message for the gateway, and back:
 *
 *   thread key   <channel>/<root ts>     C0123ABCDEF/1718000000.000100   (the channel's top-level message)
 *   message id   <channel>/<ts>          C0123ABCDEF/1718000042.000200   (submit's dedup key: Slack's own id)
 *
 * A `ts` is Slack's id of a message within its channel and its time: Unix
 * seconds, a dot, six digits (`1718000000.000100`). Every ts of our time has
 * ten digits before the dot, so ts strings sort as their times do, which the
 * state keys built on them (`seen:`, `inbox:`) rely on.
 */

const TS = /^\d{1,12}\.\d{1,8}$/;
const THREAD_KEY = /^([CGD][A-Z0-9]{8,})\/(\d{1,12}\.\d{1,8})$/;

export function isTs(value: unknown): value is string {
  return typeof value === 'string' && TS.test(value);
}

export function threadKeyOf(channel: string, rootTs: string): string {
  return `${channel}/${rootTs}`;
}

export function messageIdOf(channel: string, ts: string): string {
  return `${channel}/${ts}`;
}

/** The channel and root ts of a thread key; undefined for a key of another form. */
export function threadOfKey(key: string): { channel: string; rootTs: string } | undefined {
  const match = THREAD_KEY.exec(key);
  return match ? { channel: match[1]!, rootTs: match[2]! } : undefined;
}

/** A ts as seconds (fractional). */
export function tsSeconds(ts: string): number {
  return Number(ts);
}

/** Seconds as a ts (`1718000000.000000`): a bound for `oldest`, never a message's id. */
export function tsOfSeconds(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${whole}.000000`;
}

/** Whether ts `a` is later than `b` (as times; both ts strings). */
export function tsAfter(a: string, b: string): boolean {
  return tsSeconds(a) > tsSeconds(b) || (tsSeconds(a) === tsSeconds(b) && a > b);
}

/**
 * The link Slack shows for a message (`https://acme.slack.com/archives/C…/p1718000000000100`), a reply's with its
 * thread; from the workspace address auth.test answers. Undefined while that is not known.
 */
export function permalinkOf(workspaceUrl: string | undefined, channel: string, ts: string, rootTs?: string): string | undefined {
  if (workspaceUrl === undefined) return undefined;
  const base = `${workspaceUrl.replace(/\/+$/, '')}/archives/${channel}/p${ts.replace('.', '')}`;
  return rootTs !== undefined && rootTs !== ts ? `${base}?thread_ts=${rootTs}&cid=${channel}` : base;
}
