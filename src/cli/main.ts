#!/usr/bin/env node
/**
 * The `threadgate` command. One map from command name to module; each command
 * returns its exit code, and its module's HELP table is what `--help` / `-h`
 * prints (on stdout, exit 0) before anything is parsed. Usage problems are
 * printed plainly with their reason, exit 2; settings problems and every
 * other ThreadgateError (a store that cannot be opened, a port that is taken)
 * as one line with its code, exit 1; anything else, a bug, with its stack
 * (exit 70).
 */
import { enableCompileCache } from 'node:module';
import { ConfigInvalidError, formatProblem } from '../config/errors.ts';
import { ThreadgateError } from '../base/errors.ts';
import { UsageError } from './errors.ts';
import { helpFor, renderHelp, renderOverview, wantsHelp, type CommandHelp } from './help.ts';

interface Command {
  run: (argv: string[]) => Promise<number>;
  help: () => Promise<CommandHelp[]>;
}

/** Each command's module is imported only when that command runs (or its help is asked for), so start-up stays fast. */
const COMMANDS: Record<string, Command> = {
  serve: {
    run: async (argv) => (await import('./serve-command.ts')).serveCommand(argv),
    help: async () => (await import('./serve-command.ts')).HELP,
  },
  sandbox: {
    run: async (argv) => (await import('./sandbox-command.ts')).sandboxCommand(argv),
    help: async () => [...(await import('./sandbox-command.ts')).HELP, ...(await import('./sandbox-control-command.ts')).HELP],
  },
  migrate: {
    run: async (argv) => (await import('./migrate-command.ts')).migrateCommand(argv),
    help: async () => (await import('./migrate-command.ts')).HELP,
  },
  secrets: {
    run: async (argv) => (await import('./secrets-command.ts')).secretsCommand(argv),
    help: async () => (await import('./secrets-command.ts')).HELP,
  },
  deliveries: {
    run: async (argv) => (await import('./deliveries-command.ts')).deliveriesCommand(argv),
    help: async () => (await import('./deliveries-command.ts')).HELP,
  },
  replay: {
    run: async (argv) => (await import('./replay-command.ts')).replayCommand(argv),
    help: async () => (await import('./replay-command.ts')).HELP,
  },
  inbound: {
    run: async (argv) => (await import('./inbound-command.ts')).inboundCommand(argv),
    help: async () => (await import('./inbound-command.ts')).HELP,
  },
  jobs: {
    run: async (argv) => (await import('./jobs-command.ts')).jobsCommand(argv),
    help: async () => (await import('./jobs-command.ts')).HELP,
  },
  health: {
    run: async (argv) => (await import('./health-command.ts')).healthCommand(argv),
    help: async () => (await import('./health-command.ts')).HELP,
  },
  config: {
    run: async (argv) => (await import('./config-command.ts')).configCommand(argv),
    help: async () => (await import('./config-help.ts')).HELP,
  },
  connector: {
    run: async (argv) => (await import('./connector-command.ts')).connectorCommand(argv),
    help: async () => (await import('./connector-command.ts')).HELP,
  },
  listen: {
    run: async (argv) => (await import('./listen-command.ts')).listenCommand(argv),
    help: async () => (await import('./listen-command.ts')).HELP,
  },
  trigger: {
    run: async (argv) => (await import('./trigger-command.ts')).triggerCommand(argv),
    help: async () => (await import('./trigger-command.ts')).HELP,
  },
  webhooks: {
    run: async (argv) => (await import('./webhooks-command.ts')).webhooksCommand(argv),
    help: async () => (await import('./webhooks-command.ts')).HELP,
  },
  alerts: {
    run: async (argv) => (await import('./alerts-command.ts')).alertsCommand(argv),
    help: async () => (await import('./alerts-command.ts')).HELP,
  },
};

async function overview(): Promise<string> {
  return renderOverview((await Promise.all(Object.values(COMMANDS).map((c) => c.help()))).flat());
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    // `threadgate help replay`: the help of that command.
    const asked = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    process.stdout.write(asked ? helpFor(await asked.help(), rest.slice(1)).map(renderHelp).join('\n') : await overview());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`threadgate: unknown command "${name}"\n\n${await overview()}`);
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(helpFor(await command.help(), rest).map(renderHelp).join('\n'));
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`threadgate ${name}: ${err.message}\n${err.usage === undefined ? '' : `${err.usage}\n(threadgate ${name} --help: every option, with examples)\n`}`);
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

// Before any command's modules load: their compiled code (type stripping included) is kept on disk and reused by the
// next start, which then loads in about half the time, without the type stripper in memory (docs/benchmarks.md, "Start-up").
// The launcher (threadgate.js) has turned it on already, before this file; run directly, this file turns it on here.
// NODE_COMPILE_CACHE names the folder (default: the system's temp folder); NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// A folder that cannot be written leaves it off, silently, as Node does.
enableCompileCache();
process.exitCode = await main(process.argv.slice(2));
