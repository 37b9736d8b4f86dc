/**
 * What scripts/try-mail-servers and scripts/try-replicas share: their folder
 * (a new temp folder, or `--dir`), running in the foreground until SIGINT,
 * SIGTERM or SIGHUP and then undoing, newest first, what they started, and a
 * free loopback port.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const HOST = '127.0.0.1';
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The last line of a script's output once all is up: `<name>: ready; …`. */
export const READY = 'ready';

export interface ScriptOptions { dir: string | undefined; keep: boolean; help: boolean }

/** The options of both scripts; a usage error is told on stderr and exits 2. */
export function scriptOptions(name: string, argv: string[]): ScriptOptions {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { dir: { type: 'string' }, keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    });
    return { dir: values.dir, keep: values.keep, help: values.help };
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)} (--help for the usage)\n`);
    process.exit(2);
  }
}

/** A new folder: `dir` (created, and refused when it has files already) or a new one in the temp folder. */
export function freshFolder(dir: string | undefined, prefix: string): string {
  if (dir === undefined) return mkdtempSync(join(tmpdir(), prefix));
  const path = resolve(dir);
  if (existsSync(path) && readdirSync(path).length > 0) throw new Error(`--dir ${dir}: not empty; give a new or empty folder`);
  mkdirSync(path, { recursive: true });
  return path;
}

/** How to name this Node.js in a printed command: `node` when that is Node.js 24 or later on PATH, else its full path. */
export function nodeCommand(): string {
  const found = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return Number(found.stdout?.split('.')[0]) >= 24 ? 'node' : process.execPath;
}

export const secret = (bytes = 12) => randomBytes(bytes).toString('hex');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, HOST, done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** A script's whole run: its options (`--help` prints `help`, exit 0), then `start` in the foreground (runInForeground). */
export function runScript(name: string, help: string, argv: string[], start: (undo: Undo, options: ScriptOptions) => Promise<void>): Promise<number> {
  const options = scriptOptions(name, argv);
  if (options.help) {
    process.stdout.write(`${help}\n`);
    return Promise.resolve(0);
  }
  return runInForeground(name, (undo) => start(undo, options));
}

/** What the script undoes at the end, newest first. */
export type Undo = (what: string, run: () => Promise<unknown> | unknown) => void;

/**
 * Runs `start` (which registers what to undo as it goes), then waits for a
 * signal. A signal during the start stops right after it. Whatever happens,
 * everything registered is undone, each step once and in reverse order.
 * Answers the exit code: 0 after a signal, 1 when the start failed.
 */
export async function runInForeground(name: string, start: (undo: Undo) => Promise<void>): Promise<number> {
  const steps: { what: string; run: () => Promise<unknown> | unknown }[] = [];
  let signalled: NodeJS.Signals | undefined;
  let wake = () => {};
  const onSignal = (s: NodeJS.Signals) => {
    signalled ??= s;
    wake();
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  let code = 0;
  try {
    await start((what, run) => steps.push({ what, run }));
    process.stdout.write(`${name}: ${READY}; Ctrl-C or SIGTERM stops it\n`);
    if (signalled === undefined) await new Promise<void>((resolve) => (wake = resolve));
    process.stdout.write(`\n${name}: ${signalled}, stopping…\n`);
  } catch (err) {
    process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 1;
  }
  for (const step of steps.reverse()) {
    try {
      await step.run();
    } catch (err) {
      process.stderr.write(`${name}: could not undo ${step.what}: ${err instanceof Error ? err.message : String(err)}\n`);
      code = 1;
    }
  }
  for (const s of SIGNALS) process.off(s, onSignal);
  process.stdout.write(`${name}: stopped\n`);
  return code;
}

/** Removes the folder at the end, unless --keep (then says where it is). */
export function removeFolderAtEnd(undo: Undo, name: string, dir: string, keep: boolean): void {
  undo('the folder', () => (keep ? process.stdout.write(`${name}: kept ${dir}\n`) : rmSync(dir, { recursive: true, force: true })));
}
