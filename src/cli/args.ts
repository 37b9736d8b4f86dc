/** Small helpers over node:util parseArgs shared by the commands. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
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
