/** Plain-text tables and JSON for the log commands. */
export type Cell = string | number | boolean | null | undefined;

export function formatTable(columns: string[], rows: Cell[][]): string {
  const text = rows.map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c)).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...text.map((r) => (r[i] ?? '').length))));
  const line = (cells: string[]) =>
    cells.map((c, i) => (c.length > (widths[i] ?? 0) ? `${c.slice(0, (widths[i] ?? 1) - 1)}…` : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...text.map(line)].join('\n') + '\n';
}

export function isoTime(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
