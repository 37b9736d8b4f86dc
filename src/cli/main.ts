#!/usr/bin/env node
/**
 * The `threadgate` command. One map from command name to module; each command
 * returns its exit code. Usage problems are printed plainly with exit 2;
 * settings problems and every other ThreadgateError (a store that cannot be
 * opened, a port that is taken) as one line with its code, exit 1; anything
 * else, a bug, with its stack (exit 70).
 */
import { ConfigInvalidError, formatProblem } from '../config/errors.ts';
import { ThreadgateError } from '../errors.ts';
import { UsageError } from './errors.ts';

type Command = (argv: string[]) => Promise<number>;

/** Each command's module is imported only when that command runs, so start-up stays fast. */
const COMMANDS: Record<string, { run: Command; summary: string }> = {
  serve: {
    run: async (argv) => (await import('./serve-command.ts')).serveCommand(argv),
    summary: 'run the gateway (no platform.url: against the embedded sandbox)',
  },
  sandbox: {
    run: async (argv) => (await import('./sandbox-command.ts')).sandboxCommand(argv),
    summary: 'run the platform emulator on its own',
  },
  migrate: {
    run: async (argv) => (await import('./migrate-command.ts')).migrateCommand(argv),
    summary: 'apply pending store migrations; --from sqlite:PATH: copy that SQLite store into the configured, empty PostgreSQL one',
  },
  secrets: {
    run: async (argv) => (await import('./secrets-command.ts')).secretsCommand(argv),
    summary: 'secrets rotate <connector>: a new webhook secret, the old one valid for --grace; secrets set|unset <connector> <key>: a credential from stdin',
  },
  deliveries: {
    run: async (argv) => (await import('./deliveries-command.ts')).deliveriesCommand(argv),
    summary: 'deliveries list|show: the webhook delivery log',
  },
  replay: {
    run: async (argv) => (await import('./replay-command.ts')).replayCommand(argv),
    summary: 'replay <id>… | --status S [filters] [--dry-run]: deliver stored webhooks again',
  },
  inbound: {
    run: async (argv) => (await import('./inbound-command.ts')).inboundCommand(argv),
    summary: 'inbound list|show|retry: messages on their way to the platform (retry --status dead: all dead ones)',
  },
  jobs: {
    run: async (argv) => (await import('./jobs-command.ts')).jobsCommand(argv),
    summary: 'jobs list|retry: the job queue; dead jobs queued again (--status dead [filters] [--dry-run])',
  },
  health: {
    run: async (argv) => (await import('./health-command.ts')).healthCommand(argv),
    summary: 'ask the configured gateway for /healthz: exit 0 healthy, 1 not (the container health check)',
  },
  config: {
    run: async (argv) => (await import('./config-command.ts')).configCommand(argv),
    summary: 'config check: print every problem of the settings',
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: threadgate <command> [options]\n\ncommands:\n${lines.join('\n')}\n\n` +
    `options: --config PATH (or THREADGATE_CONFIG)\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`threadgate: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`threadgate ${name}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ConfigInvalidError) {
      process.stderr.write(`${err.source}: ${err.problems.length} problem(s)\n`);
      for (const p of err.problems) process.stderr.write(`  ${formatProblem(p)}\n`);
      return 1;
    }
    if (err instanceof ThreadgateError) {
      process.stderr.write(`threadgate ${name}: ${err.code}: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`threadgate ${name}: ${(err as Error).stack ?? String(err)}\n`);
    return 70;
  }
}

process.exitCode = await main(process.argv.slice(2));
