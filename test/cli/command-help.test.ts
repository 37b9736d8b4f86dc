/**
 * `--help` of every command and subcommand, run on the real binary: usage,
 * each option it parses (taken from the command's own parse spec, so an
 * option added without help fails here) with a description and its default,
 * and an example, on stdout with exit 0, before anything is parsed or
 * opened. The overview lists every form. And a command line that matches no
 * form names why, not only the usage.
 */
import { describe, expect, it } from 'vitest';
import type { Options } from '../../src/cli/args.ts';
import type { CommandHelp } from '../../src/cli/help.ts';
import { runCli, runCliAsync } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

/** Each command's module: its HELP table, and the options it parses (config check and secrets set|unset: `--config` alone). */
const MODULES: Record<string, { HELP: CommandHelp[]; OPTIONS?: Options }> = {
  serve: await import('../../src/cli/serve-command.ts'),
  sandbox: await import('../../src/cli/sandbox-command.ts'),
  migrate: await import('../../src/cli/migrate-command.ts'),
  secrets: await import('../../src/cli/secrets-command.ts'),
  deliveries: await import('../../src/cli/deliveries-command.ts'),
  replay: await import('../../src/cli/replay-command.ts'),
  inbound: await import('../../src/cli/inbound-command.ts'),
  jobs: await import('../../src/cli/jobs-command.ts'),
  health: await import('../../src/cli/health-command.ts'),
  config: await import('../../src/cli/config-help.ts'),
  listen: await import('../../src/cli/listen-command.ts'),
  trigger: await import('../../src/cli/trigger-command.ts'),
  webhooks: await import('../../src/cli/webhooks-command.ts'),
};
const ENTRIES = Object.values(MODULES).flatMap((m) => m.HELP);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('threadgate <command> --help', () => {
  it('covers every option each command parses, and names none it does not', () => {
    for (const [name, { HELP, OPTIONS }] of Object.entries(MODULES)) {
      if (OPTIONS === undefined) continue;
      const described = new Set(HELP.flatMap((h) => Object.keys(h.options)));
      expect([...described].sort(), name).toEqual(Object.keys(OPTIONS).sort());
    }
    expect(ENTRIES.map((h) => h.name)).toEqual(expect.arrayContaining(['deliveries export', 'secrets set', 'secrets unset', 'inbound retry', 'jobs retry', 'config check']));
  });

  it.each(ENTRIES.map((h) => [h.name, h] as const))('%s --help: usage, every option with its text and default, an example; exit 0', (name, help) => {
    const dir = tempDir();
    const r = runCli([...name.split(' '), '--help'], { cwd: dir });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`usage: threadgate ${help.usage[0]}`);
    for (const [option, spec] of Object.entries(help.options)) {
      const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${option}`;
      const line = r.stdout.split('\n').find((l) => new RegExp(`^  ${escape(flag)}(?: \\S+)? {2,}\\S`).test(l));
      expect(line, `--${option} in ${name} --help`).toBeDefined();
      expect(line).not.toContain('undescribed');
      if (spec.default !== undefined) expect(line).toContain(`default: ${String(spec.default)})`);
    }
    expect(r.stdout).toMatch(new RegExp(`\\nexamples:\\n  threadgate ${escape(name)}\\b`));
    expect(runCli([...name.split(' '), '-h'], { cwd: dir }).stdout).toBe(r.stdout);
  });

  it('answers --help anywhere on the line, before the settings are read or a store opened', async () => {
    const dir = tempDir();
    const r = await runCliAsync(['replay', '--status', 'dead', '--config', '/nonexistent.yaml', '--help'], { cwd: dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^threadgate replay: /);
    expect((await runCliAsync(['deliveries', '--help'])).stdout).toMatch(/threadgate deliveries list: [^]*threadgate deliveries show: [^]*threadgate deliveries export: /);
    expect((await runCliAsync(['help', 'jobs', 'retry'])).stdout).toMatch(/^threadgate jobs retry: /);
  });

  it('the overview (--help, help, no arguments) lists every command and subcommand with all their forms', async () => {
    const [help, word, none] = await Promise.all([runCliAsync(['--help']), runCliAsync(['help']), runCliAsync([])]);
    expect([help.status, word.status, none.status]).toEqual([0, 0, 2]);
    expect(word.stdout).toBe(help.stdout);
    expect(none.stdout).toBe(help.stdout);
    for (const form of ENTRIES.flatMap((h) => h.usage)) expect(help.stdout).toContain(`  threadgate ${form}\n`);
    for (const form of ['deliveries export', 'replay <id>… --to URL', 'replay --from file.ndjson --to URL', 'secrets set', 'config check']) {
      expect(help.stdout).toContain(`threadgate ${form}`);
    }
  });
});

describe('usage errors', () => {
  it.each([
    [['replay'], 'replay takes delivery ids, or --status S'],
    [['replay', '4', '--status', 'dead'], 'replay takes delivery ids or a --status filter, not both'],
    [['replay', '4', '--since', '2h'], '--since filters what --status matches'],
    [['deliveries'], 'deliveries takes a subcommand: list, show or export'],
    [['deliveries', 'lst'], 'deliveries has no subcommand "lst": it takes list, show or export'],
    [['deliveries', 'show'], 'deliveries show takes one delivery id, got 0'],
    [['inbound', 'retry'], 'inbound retry takes message ids, or --status dead'],
    [['inbound', 'list', '--dry-run'], '--dry-run goes with inbound retry, not inbound list'],
    [['jobs', 'retry', '7', '--kind', 'connector.deliver'], '--kind filters what --status dead matches; with job ids, give no filter'],
    [['secrets'], 'secrets takes a subcommand: rotate, set or unset'],
    [['secrets', 'rotate'], "secrets rotate takes the connector's name"],
    [['secrets', 'set', 'mail'], "secrets set takes the connector's name and the key, got no key"],
    [['config'], 'config takes a subcommand: check'],
    [['migrate', 'now'], 'migrate takes no arguments, got "now"'],
  ])('threadgate %j names the reason, then the forms; exit 2', async (args, reason) => {
    const r = await runCliAsync(args, { cwd: tempDir() });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const [first, second] = r.stderr.split('\n');
    expect(first).toMatch(new RegExp(`^threadgate ${args[0]}: .*${escape(reason)}`));
    expect(second).toMatch(/^usage: (printf %s "\$VALUE" \| )?threadgate /);
  });
});
