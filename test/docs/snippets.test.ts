/**
 * The examples of README.md and docs/*.md work as written: every YAML block
 * is settings that the whole check of `config check` and `serve`
 * (core settings and each connector's own keys) accepts, with each `${VAR}`
 * it names set; a block that is not settings says so before its fence and
 * still parses as YAML; every `threadgate …` line of a shell block names a
 * command, subcommand and options the command has.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { checkSettingsWithConnectors } from '../../src/config/checked-settings.ts';
import { formatProblem } from '../../src/config/errors.ts';
import { SettingsSections } from '../../src/config/schema.ts';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { asSettingsFile, docFiles, entryKeysOf, fencedBlocks, isShell, isYaml, NOT_SETTINGS, plausibleEnv, ROOT, threadgateCommands, withEntryKeys, type Block } from './doc-snippets.ts';

const blocks = docFiles().flatMap(fencedBlocks);
const yamlBlocks = blocks.filter(isYaml);
const keyBlocks = yamlBlocks.filter((b) => entryKeysOf(b) !== undefined);
const settingsBlocks = yamlBlocks.filter((b) => !NOT_SETTINGS.test(b.before) && entryKeysOf(b) === undefined);
const otherYaml = yamlBlocks.filter((b) => NOT_SETTINGS.test(b.before));
const where = (b: Block) => `${b.file}:${b.line}`;

/** Every problem of the block as settings, each with its place in the document. */
async function problemsOf(block: Block): Promise<string[]> {
  const { text, linesBefore } = asSettingsFile(block.text);
  // Connector modules are named relative to the settings file, which the guides keep at the repository's root.
  const check = await checkSettingsWithConnectors(text, { env: plausibleEnv(block.text), cwd: tempDir(), baseDir: ROOT });
  return check.problems.map((p) =>
    p.line === undefined ? formatProblem(p) : `${block.file}:${block.line + p.line - 1 - linesBefore}: ${formatProblem({ ...p, line: undefined })}`,
  );
}

describe('YAML examples of the documentation', () => {
  it('are found: whole settings files and fragments of connectors:, in the README and the guides', () => {
    expect(settingsBlocks.map((b) => b.file)).toEqual(expect.arrayContaining(['README.md', 'docs/connectors.md', 'docs/email-providers.md']));
    const wrapped = settingsBlocks.filter((b) => asSettingsFile(b.text).linesBefore > 0);
    expect(wrapped.length).toBeGreaterThan(0);
    expect(wrapped.length).toBeLessThan(settingsBlocks.length);
  });

  it.each(settingsBlocks.map((b) => [where(b), b] as const))('%s is settings config check accepts', async (_, block) => {
    expect(await problemsOf(block)).toEqual([]);
  });

  it.each(keyBlocks.map((b) => [where(b), b] as const))('%s (keys of a connector entry) are accepted within an example entry', async (_, block) => {
    const type = entryKeysOf(block)!;
    expect(parseDocument(block.text).errors.map((e) => e.message)).toEqual([]);
    const text = withEntryKeys(settingsBlocks, type, block.text);
    expect(text, `a whole example of a ${type} entry in the documents`).toBeDefined();
    const check = await checkSettingsWithConnectors(text!, { env: plausibleEnv(text!), cwd: tempDir(), baseDir: ROOT });
    expect(check.problems.map(formatProblem)).toEqual([]);
  });

  it.each(otherYaml.map((b) => [where(b), b] as const))('%s (not settings) parses as YAML and is not settings', (_, block) => {
    const doc = parseDocument(block.text);
    expect(doc.errors.map((e) => e.message)).toEqual([]);
    // The opt-out cannot hide a settings example: none of its top-level keys is a settings section.
    const top = Object.keys((doc.toJS() ?? {}) as object);
    expect(top.filter((k) => Object.hasOwn(SettingsSections.shape, k))).toEqual([]);
  });
});

describe('the snippet check itself', () => {
  const block = (text: string): Block => ({ file: 'X.md', line: 10, lang: 'yaml', text, before: '' });

  // Guards against: README's e-mail example had `password: ${IMAP_PASSWORD}` unquoted inside { … } and answered 47 problems without a line.
  it('refuses an unquoted ${VAR} inside { … }, naming the line of the document', async () => {
    const entry = [
      '  - name: support-mail',
      '    type: email',
      '    address: support@example.com',
      '    imap: { host: imap.example.com, user: support@example.com, password: ${IMAP_PASSWORD} }',
      '    smtp: { host: smtp.example.com }',
    ].join('\n');
    expect(await problemsOf(block(`${entry}\n`))).toEqual([
      'X.md:13: YAML: ${IMAP_PASSWORD} inside { … } or [ … ] must be quoted: "${IMAP_PASSWORD}"',
      expect.stringMatching(/^YAML: \d+ more syntax error\(s\) further on/),
    ]);
    expect(await problemsOf(block(`${entry.replace('${IMAP_PASSWORD}', '"${IMAP_PASSWORD}"')}\n`))).toEqual([]);
  });

  it("wraps one connector entry into connectors:, and checks its connector's keys", async () => {
    expect(asSettingsFile('name: hooks\ntype: webhook\nallow_unsigned: true\n').text).toBe('connectors:\n  - name: hooks\n    type: webhook\n    allow_unsigned: true\n');
    expect(await problemsOf(block('name: hooks\ntype: webhook\n'))).toEqual(['connectors[0].inbound_secret: required (or set allow_unsigned: true for a local demo)']);
  });

  it('sets each ${VAR} of the snippet, and only those', () => {
    expect(plausibleEnv('a: ${TOKEN}\nb: "${PORT}"\nc: ${X:-y}\nd: $${LITERAL}\n')).toEqual({ TOKEN: expect.stringMatching(/^whsec_/), PORT: '8080', X: expect.any(String) });
  });
});

describe('threadgate commands of the shell examples', () => {
  const commands = blocks.filter(isShell).flatMap((b) => threadgateCommands(b).map((c) => ({ ...c, file: b.file })));
  /** Usage lines of `threadgate help` by command: its subcommands and options. */
  const known = new Map<string, { subcommands: Set<string>; options: Set<string> }>();
  const overview = runCli(['help']);
  for (const [, name, rest] of overview.stdout.matchAll(/^\s+threadgate ([a-z][a-z-]*)(.*)$/gm)) {
    const entry = known.get(name!) ?? { subcommands: new Set<string>(), options: new Set(['--config', '--help']) };
    const first = rest!.trim().split(/\s+/)[0] ?? '';
    if (/^[a-z][a-z-]*$/.test(first)) entry.subcommands.add(first);
    for (const [option] of rest!.matchAll(/--[a-z][a-z0-9-]*/g)) entry.options.add(option);
    known.set(name!, entry);
  }

  it('are found, and threadgate help lists its commands', () => {
    expect(overview.status).toBe(0);
    expect([...known.keys()]).toEqual(expect.arrayContaining(['serve', 'config', 'deliveries', 'replay']));
    expect(commands.length).toBeGreaterThan(0);
  });

  it.each(commands.map((c) => [`${c.file}:${c.line}`, c] as const))('%s names a command, subcommand and options that exist', (_, { words }) => {
    const [name, ...args] = words as [string, ...string[]];
    const command = known.get(name);
    expect(command, `threadgate ${name}`).toBeDefined();
    if (command!.subcommands.size > 0) expect([...command!.subcommands]).toContain(args[0]);
    const options = args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);
    expect(options.filter((o) => !command!.options.has(o))).toEqual([]);
  });
});

describe('a settings example pasted as written', () => {
  it('passes the real config check (the e-mail connector of the README)', () => {
    const readme = settingsBlocks.find((b) => b.file === 'README.md' && b.text.includes('type: email'))!;
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, asSettingsFile(readme.text).text);
    const r = runCli(['config', 'check', '--config', file], { env: plausibleEnv(readme.text) });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('ok — platform embedded sandbox, 1 connector(s)');
    expect(r.status).toBe(0);
  });
});
