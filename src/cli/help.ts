/**
 * The help of the commands: each command module exports a `HELP` table, one
 * entry per subcommand, naming the parse spec it reads (its `OPTIONS`) with a
 * line for every option of it — the types refuse an option without one — its
 * forms and an example. `--help` / `-h` prints it (main.ts); the overview of
 * `threadgate --help` is made of every table's forms and summaries.
 */
import type { Options } from './args.ts';

export interface OptionHelp {
  /** What the value looks like (PATH, URL, 2h|ISO); none for a flag. */
  value?: string;
  text: string;
  /** The default when the option is not given, unless its parse spec has one. */
  default?: string;
}

/** The help line of `--config`, which most commands read. */
export const configHelp = {
  config: { value: 'PATH', text: 'the settings file', default: '$THREADGATE_CONFIG, else none: every default, the store at ./data/threadgate.db' },
} satisfies Record<string, OptionHelp>;

export interface CommandHelp {
  /** The words after `threadgate`: `replay`, `secrets rotate`. */
  name: string;
  /** One line, for the overview. */
  summary: string;
  /** Its forms, each as typed after `threadgate `. */
  usage: string[];
  /** The options it reads (a part of what its command parses), each described. */
  options: Options;
  describe: Record<string, OptionHelp>;
  /** Command lines, each as typed after `threadgate `. */
  examples: string[];
  /** Anything else worth knowing, one line each. */
  notes?: string[];
}

/** A help table entry whose `describe` has a line for every option of `options`. */
export function commandHelp<const O extends Options>(
  help: Omit<CommandHelp, 'options' | 'describe'> & { options: O; describe: { [K in keyof O]: OptionHelp } },
): CommandHelp {
  return help;
}

/** Some entries of a parse spec or of its help (a subcommand reads fewer options than its command parses). */
export function pick<T extends object, K extends keyof T & string>(from: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>;
}

/** `--help` or `-h` anywhere before a `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The entries a command line asks about: its subcommand's, when it names one; else all of the command's. */
export function helpFor(helps: readonly CommandHelp[], argv: readonly string[]): CommandHelp[] {
  const verb = argv.find((a) => !a.startsWith('-'));
  const one = helps.filter((h) => h.name.split(' ')[1] === verb);
  return one.length > 0 ? one : [...helps];
}

export function usageLines(helps: readonly CommandHelp[]): string {
  return helps.flatMap((h) => h.usage).map((u, i) => `${i === 0 ? 'usage:' : '      '} threadgate ${u}`).join('\n');
}

function optionLines(help: CommandHelp): string[] {
  const rows = Object.entries(help.options).map(([name, spec]) => {
    const d = help.describe[name];
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${d?.value ? ` ${d.value}` : ''}`;
    const given = spec.default ?? d?.default;
    const extras = [spec.multiple ? 'may be repeated' : '', given === undefined ? '' : `default: ${Array.isArray(given) ? given.join(',') : String(given)}`].filter((e) => e !== '');
    return [flag, `${d?.text ?? 'undescribed'}${extras.length > 0 ? ` (${extras.join('; ')})` : ''}`] as const;
  });
  rows.push(['-h, --help', 'print this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

export function renderHelp(help: CommandHelp): string {
  return [
    `threadgate ${help.name}: ${help.summary}`,
    '',
    usageLines([help]),
    ...(help.notes?.length ? ['', ...help.notes] : []),
    '',
    'options:',
    ...optionLines(help),
    '',
    'examples:',
    ...help.examples.map((e) => `  threadgate ${e}`),
  ].join('\n') + '\n';
}

/** Every command and subcommand, with its forms and summary (`threadgate --help`). */
export function renderOverview(helps: readonly CommandHelp[]): string {
  const entries = helps.map((h) => `${h.usage.map((u) => `  threadgate ${u}`).join('\n')}\n      ${h.summary}`);
  return `usage: threadgate <command> [options]\n\ncommands:\n${entries.join('\n')}\n\n` +
    'Every command reads the settings named by --config PATH (or THREADGATE_CONFIG).\n' +
    'threadgate <command> --help: its options, their defaults and examples.\n';
}
