/** Small helpers over node:util parseArgs shared by the commands. */
import type { ParseArgsConfig } from 'node:util';
import { parseArgs } from '../base/builtins.ts';
import { UsageError } from './errors.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

export function parse<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function portOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`${name} must be a port number from 0 to 65535, got "${value}"`);
  }
  return port;
}

export const configOption = { config: { type: 'string', short: 'c' } } as const;

/** `list, show or export`. */
export function oneOf(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** The usage error of a command line that names none of the command's subcommands. */
export function subcommandError(command: string, verbs: readonly string[], given: string | undefined, usage: string): UsageError {
  const reason = given === undefined ? `${command} takes a subcommand: ${oneOf(verbs)}` : `${command} has no subcommand "${given}": it takes ${oneOf(verbs)}`;
  return new UsageError(reason, { usage });
}
