/**
 * The Date header as a `Date`, or undefined — never "now": mailparser turns
 * an unreadable date into the current time, which would make the same mail
 * parse differently on every read.
 *
 * Accepts RFC 5322 dates and what clients really send: comments
 * ("+0100 (CET)"), a missing weekday or comma, two-digit years, and a named
 * zone instead of an offset (the common European and Asian ones are
 * mapped; JavaScript knows only the US ones and UT/GMT).
 */

const ZONES: Readonly<Record<string, string>> = {
  CET: '+0100',
  CEST: '+0200',
  MET: '+0100',
  MEST: '+0200',
  WET: '+0000',
  WEST: '+0100',
  EET: '+0200',
  EEST: '+0300',
  BST: '+0100',
  MSK: '+0300',
  IST: '+0530',
  JST: '+0900',
  KST: '+0900',
  AEST: '+1000',
  AEDT: '+1100',
};

export function parseMailDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const cleaned = value
    .replace(/\([^()]*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\b([A-Z]{3,4})$/, (zone) => ZONES[zone] ?? zone);
  if (cleaned === '') return undefined;
  const time = Date.parse(cleaned);
  return Number.isFinite(time) ? new Date(time) : undefined;
}
