/**
 * Time as the Jira Cloud counterpart writes and reads it, in a user's IANA
 * time zone (its own code, independent of the adapter's jql-time.ts):
 *
 *   platform fields   2026-11-29T14:05:09.854+1100                 (jiraTime)
 *   DateDTO           { iso8601: 2026-11-29T14:05:09+1100, jira, friendly, epochMillis }
 *   JQL literals      "2026/11/29 14:05", "2026-11-29 14:05", "2026/11/29", or "-5m", "-1w 2d" (parseJqlDate)
 *
 * A JQL wall time is read in the searching user's zone (as Jira Cloud does).
 * A wall time that happens twice (the hour repeated when daylight saving
 * ends) is read as the LATER instant: the reference is silent, and the later
 * reading is the one that would make a careless client skip changes. A wall
 * time that never happens (the hour skipped in spring) is read with the
 * offset before the change, as java.time does.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

function parts(ms: number, zone: string): number[] {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return [p.year!, p.month!, p.day!, p.hour!, p.minute!, p.second!];
}

/** Minutes east of UTC of `zone` at `ms`. */
export function zoneOffset(ms: number, zone: string): number {
  const at = Math.floor(ms / 1000) * 1000;
  const [y, mo, d, h, mi, s] = parts(at, zone);
  return Math.round((Date.UTC(y!, mo! - 1, d!, h!, mi!, s!) - at) / MINUTE);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
const offsetText = (minutes: number) => `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}${pad(Math.abs(minutes) % 60)}`;

/** `2026-11-29T14:05:09.854+1100`: how Jira's platform API writes a time, in the viewer's zone. */
export function jiraTime(ms: number, zone: string): string {
  const [y, mo, d, h, mi, s] = parts(ms, zone);
  return `${y}-${pad(mo!)}-${pad(d!)}T${pad(h!)}:${pad(mi!)}:${pad(s!)}.${pad(((ms % 1000) + 1000) % 1000, 3)}${offsetText(zoneOffset(ms, zone))}`;
}

/** A Service Management `DateDTO`. */
export function dateDto(ms: number, zone: string): { iso8601: string; jira: string; friendly: string; epochMillis: number } {
  const jira = jiraTime(ms, zone);
  const [y, mo, d, h, mi] = parts(ms, zone);
  return { iso8601: jira.replace(/\.\d{3}/, ''), jira, friendly: `${y}/${pad(mo!)}/${pad(d!)} ${pad(h!)}:${pad(mi!)}`, epochMillis: ms };
}

/** The instant of a wall time in `zone`; of two, the later (see above). */
export function wallToInstant(wall: { y: number; mo: number; d: number; h: number; mi: number }, zone: string): number {
  const utc = Date.UTC(wall.y, wall.mo - 1, wall.d, wall.h, wall.mi);
  const offsets = new Set([utc - DAY, utc, utc + DAY].map((ms) => zoneOffset(ms, zone)));
  const valid = [...offsets].map((o) => utc - o * MINUTE).filter((t) => zoneOffset(t, zone) * MINUTE === utc - t);
  if (valid.length > 0) return Math.max(...valid);
  return utc - zoneOffset(utc - DAY, zone) * MINUTE;
}

const UNITS: Record<string, number> = { w: 7 * DAY, d: DAY, h: 60 * MINUTE, m: MINUTE };

/** A JQL date value as an instant: absolute in `zone`, or relative to `now`; undefined when it is neither. */
export function parseJqlDate(value: string, zone: string, now: number): number | undefined {
  const abs = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?: (\d{1,2}):(\d{2}))?$/.exec(value.trim());
  if (abs) {
    const [, y, mo, d, h, mi] = abs.map(Number);
    if (mo! < 1 || mo! > 12 || d! < 1 || d! > 31 || (h ?? 0) > 23 || (mi ?? 0) > 59) return undefined;
    return wallToInstant({ y: y!, mo: mo!, d: d!, h: Number.isNaN(h) ? 0 : h!, mi: Number.isNaN(mi) ? 0 : mi! }, zone);
  }
  const rel = /^([-+]?)((?:\s*\d+[wdhm])+)$/.exec(value.trim());
  if (!rel) return undefined;
  let span = 0;
  for (const [, n, unit] of rel[2]!.matchAll(/(\d+)([wdhm])/g)) span += Number(n) * UNITS[unit!]!;
  return rel[1] === '-' ? now - span : now + span;
}
