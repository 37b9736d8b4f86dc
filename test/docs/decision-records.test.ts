/**
 * The decision records (docs/decisions/, one per decision in force) stay
 * short and findable: no record is over 150 lines; each has its title,
 * Context, Decision, Consequences and Date; the index (docs/decisions/README.md)
 * names every record and no missing file; every mention of a record in the
 * repository (src, connectors, test, docs, migrations, README.md) and every
 * link between records names a file that exists; and the old diary,
 * docs/decisions.md, does not come back. Each check lists the offending files.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const FOLDER = join(ROOT, 'docs/decisions');
const MAX_LINES = 150;

const records = readdirSync(FOLDER)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();
const text = (file: string): string => readFileSync(join(FOLDER, file), 'utf8');
const lineCount = (s: string): number => s.replace(/\n$/, '').split('\n').length;

/** Every file under `dir` (relative to the root) whose name ends in one of `exts`, skipping dependencies and git. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [dir];
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git') continue;
    const path = join(abs, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(relative(ROOT, path), exts));
    else if (exts.some((e) => entry.name.endsWith(e))) out.push(relative(ROOT, path));
  }
  return out;
}

// The folder's name is split so this file's own source never reads as a mention.
const MENTION = new RegExp(`docs/${'decisions'}/([A-Za-z0-9_.-]+\\.md)`, 'g');
/** Relative Markdown link targets to .md files (no scheme, no anchor part). */
const MD_LINK = /\]\(([^)#\s:]+\.md)(?:#[^)]*)?\)/g;

describe('decision records', () => {
  it('exist: the folder holds records and the old diary is gone', () => {
    expect(records.length).toBeGreaterThan(0);
    expect(existsSync(join(ROOT, 'docs/decisions.md')), 'docs/decisions.md exists again').toBe(false);
  });

  it(`are at most ${MAX_LINES} lines each`, () => {
    const tooLong = records.filter((f) => lineCount(text(f)) > MAX_LINES).map((f) => `${f}: ${lineCount(text(f))} lines`);
    expect(tooLong).toEqual([]);
  });

  it('each have a title, Context, Decision, Consequences and a Date line', () => {
    const incomplete = records.flatMap((f) => {
      const s = text(f);
      const missing = [
        /^# \S/.test(s) ? undefined : 'a # title on the first line',
        ...['Context', 'Decision', 'Consequences'].map((h) => (new RegExp(`^## ${h}$`, 'm').test(s) ? undefined : `## ${h}`)),
        /^\*\*Date:\*\* \d{4}-\d{2}-\d{2}$/m.test(s) ? undefined : '**Date:** YYYY-MM-DD',
      ].filter((m) => m !== undefined);
      return missing.length === 0 ? [] : [`${f}: no ${missing.join(', ')}`];
    });
    expect(incomplete).toEqual([]);
  });

  it('are all in the index, and the index names no missing file', () => {
    const index = readFileSync(join(FOLDER, 'README.md'), 'utf8');
    const listed = [...index.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1]!);
    expect(records.filter((f) => !listed.includes(f))).toEqual([]);
    expect(listed.filter((f) => !existsSync(join(FOLDER, f)))).toEqual([]);
  });

  it('link each other, and are linked from docs/*.md, only by files that exist', () => {
    const broken: string[] = [];
    for (const f of [...records, 'README.md']) {
      for (const [, target] of text(f).matchAll(MD_LINK)) if (!existsSync(join(FOLDER, target!))) broken.push(`docs/decisions/${f} → ${target}`);
    }
    for (const f of filesUnder('docs', ['.md']).filter((p) => !p.includes('/decisions/'))) {
      const s = readFileSync(join(ROOT, f), 'utf8');
      for (const [, target] of s.matchAll(MD_LINK)) {
        if (target!.startsWith('decisions/') && !existsSync(join(ROOT, 'docs', target!))) broken.push(`${f} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('are mentioned by path only where the record exists (src, connectors, test, docs, migrations, README.md)', () => {
    const files = [
      ...['src', 'connectors', 'test', 'migrations'].flatMap((d) => filesUnder(d, ['.ts', '.js', '.mjs', '.sql', '.md'])),
      ...filesUnder('docs', ['.md']),
      'README.md',
    ];
    const missing = files.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(MENTION)]
        .map((m) => m[1]!)
        .filter((name) => !existsSync(join(FOLDER, name)))
        .map((name) => `${f}: docs/decisions/${name}`),
    );
    expect(missing).toEqual([]);
  });
});
