/**
 * The lower bound of a JQL date search that never starts after the instant
 * it stands for. JQL takes a date as a wall-clock time to the minute
 * (`"2026/11/29 14:05"`) and reads it in the time zone of the searching
 * user's profile, not in UTC; Jira tells that zone in `GET
 * /rest/api/3/myself` (`timeZone`, an IANA name). So:
 *
 *   - the instant is floored to its minute (JQL has no seconds);
 *   - it is written as the wall time of that minute in the user's zone;
 *   - within a day of a change of that zone's offset (daylight saving), the
 *     wall time is written that much earlier: a wall time that happens twice
 *     (the hour repeated in autumn) may be read as either, and the later one
 *     would skip changes;
 *   - without a zone Jira tells (hidden by privacy settings, or one this
 *     Node does not know), a relative bound (`"-17m"`) is used instead,
 *     counted from Jira's own clock (its `Date` header) and a minute wider.
 *
 * The bound may start before the instant, never after: what it lists twice
 * the poller recognises (same `updated`, same comment ids).
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function format(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formats.set(zone, f);
  }
  return f;
}

/** Whether this Node knows `zone` (an IANA name such as `Australia/Sydney`). */
export function knownZone(zone: string | undefined | null): zone is string {
  if (!zone) return false;
  try {
    format(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock parts of `ms` in `zone`. */
function wallParts(ms: number, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts = Object.fromEntries(format(zone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return { y: Number(parts.year), mo: Number(parts.month), d: Number(parts.day), h: Number(parts.hour), mi: Number(parts.minute), s: Number(parts.second) };
}

/** The offset of `zone` from UTC at `ms`, in minutes (east positive). */
export function offsetMinutes(ms: number, zone: string): number {
  const at = Math.floor(ms / 1000) * 1000;
  const p = wallParts(at, zone);
  return Math.round((Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - at) / MINUTE);
}

const two = (n: number) => String(n).padStart(2, '0');

/** `ms` as JQL writes a date and time in `zone`: `yyyy/MM/dd HH:mm` (seconds dropped). */
export function wallMinute(ms: number, zone: string): string {
  const p = wallParts(ms, zone);
  return `${p.y}/${two(p.mo)}/${two(p.d)} ${two(p.h)}:${two(p.mi)}`;
}

/**
 * The JQL literal for "at or after `from`" (quoted), in the user's `zone`,
 * or relative to Jira's clock `jiraNow` when the zone is not known.
 */
export function jqlBound(from: number, zone: string | undefined, jiraNow: number): string {
  if (!knownZone(zone)) {
    const minutes = Math.max(0, Math.ceil((jiraNow - from) / MINUTE)) + 1;
    return `"-${minutes}m"`;
  }
  const minute = Math.floor(from / MINUTE) * MINUTE;
  const offsets = [minute - DAY, minute, minute + DAY].map((ms) => offsetMinutes(ms, zone));
  const spread = (Math.max(...offsets) - Math.min(...offsets)) * MINUTE;
  return `"${wallMinute(minute - spread, zone)}"`;
}
