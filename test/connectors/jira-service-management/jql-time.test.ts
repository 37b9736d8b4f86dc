/**
 * The JQL bound of a cursor (connectors/jira-service-management/jql-time.ts),
 * read back as Jira reads it — the counterpart's own reading of a wall time
 * in the user's zone (test/support/jira-service-management/jsm-time.ts), which
 * takes the later instant when a wall time happens twice. For every instant
 * around the daylight-saving changes of zones east and west of UTC (with
 * half- and three-quarter-hour offsets among them), the bound never starts
 * after the cursor, and starts at most a minute before it away from a change.
 */
import { describe, expect, it } from 'vitest';
import { jqlBound, knownZone, offsetMinutes, wallMinute } from '../../../connectors/jira-service-management/jql-time.ts';
import { parseJqlDate } from '../../support/jira-service-management/jsm-time.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const read = (bound: string, zone: string, now: number) => parseJqlDate(bound.replace(/^"|"$/g, ''), zone, now)!;

/** Instants every 7 minutes 13 seconds through two days around `center`. */
const around = (center: string) => Array.from({ length: 400 }, (_, i) => Date.parse(center) - 24 * HOUR + i * (7 * MINUTE + 13_000));

const changes: [string, string][] = [
  ['Europe/Berlin', '2026-10-25T01:00:00Z'], // 03:00 CEST → 02:00 CET: 02:00–03:00 happens twice
  ['Europe/Berlin', '2026-03-29T01:00:00Z'], // 02:00 CET → 03:00 CEST: skipped
  ['America/New_York', '2026-11-01T06:00:00Z'],
  ['Australia/Sydney', '2026-04-04T16:00:00Z'], // 03:00 AEDT → 02:00 AEST
  ['Pacific/Chatham', '2026-04-04T14:00:00Z'], // +13:45 → +12:45
  ['America/St_Johns', '2026-11-01T04:30:00Z'], // -02:30 → -03:30
  ['Asia/Kolkata', '2026-06-01T00:00:00Z'], // +05:30, no change
];

describe('the JQL bound of a cursor', () => {
  it('writes the wall-clock minute of the user’s zone, seconds dropped', () => {
    expect(wallMinute(Date.parse('2026-11-29T03:55:46.500Z'), 'Australia/Sydney')).toBe('2026/11/29 14:55');
    expect(jqlBound(Date.parse('2026-11-29T03:55:46.500Z'), 'Australia/Sydney', 0)).toBe('"2026/11/29 14:55"');
    expect(jqlBound(Date.parse('2026-11-29T03:55:46.500Z'), 'America/St_Johns', 0)).toBe('"2026/11/29 00:25"');
    expect(offsetMinutes(Date.parse('2026-11-29T00:00:00Z'), 'Pacific/Chatham')).toBe(13 * 60 + 45);
  });

  for (const [zone, center] of changes) {
    it(`never starts after the cursor around ${center} in ${zone}, and away from the change at most a minute before it`, () => {
      for (const from of around(center)) {
        const at = read(jqlBound(from, zone, from), zone, from);
        expect(at, `bound of ${new Date(from).toISOString()}`).toBeLessThanOrEqual(from);
        const nearChange = Math.abs(from - Date.parse(center)) <= 24 * HOUR + MINUTE && offsetMinutes(from - 24 * HOUR, zone) !== offsetMinutes(from + 24 * HOUR, zone);
        expect(from - at, `width at ${new Date(from).toISOString()}`).toBeLessThanOrEqual(nearChange ? HOUR + MINUTE : MINUTE);
      }
    });
  }

  it('without a zone Jira tells, is relative to Jira’s clock and a minute wider', () => {
    const jiraNow = Date.parse('2026-11-29T04:00:30Z');
    const from = jiraNow - 17 * MINUTE - 10_000;
    const bound = jqlBound(from, undefined, jiraNow);
    expect(bound).toBe('"-19m"');
    expect(read(bound, 'UTC', jiraNow)).toBeLessThanOrEqual(from);
    expect(knownZone(null)).toBe(false);
    expect(knownZone('Mars/Olympus_Mons')).toBe(false);
    expect(jqlBound(from, 'Mars/Olympus_Mons', jiraNow)).toBe('"-19m"');
  });
});
