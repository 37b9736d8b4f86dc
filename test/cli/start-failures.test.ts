/**
 * A store that cannot be opened and a port that is taken stop every command
 * with one line naming the code, the path or address and the reason: exit 1,
 * no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MAIN, runCli, type CliResult } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

const STORE_COMMANDS = [['serve', '--port', '0'], ['migrate'], ['deliveries', 'list'], ['inbound', 'list']];

/** A settings file whose store is `store`, in its own folder. */
function configFor(store: string): string {
  const file = join(tempDir(), 'threadgate.yaml');
  writeFileSync(file, `store:\n  path: ${JSON.stringify(store)}\nlog:\n  level: info\n`);
  return file;
}

/** A text file where the store should be. */
function textStore(): string {
  const store = join(tempDir(), 'notes.db');
  writeFileSync(store, 'this is a text file, not a database\n'.repeat(200));
  return store;
}

/** A real store, made by `threadgate migrate`, at `path`. */
function realStore(path: string): void {
  expect(runCli(['migrate', '--config', configFor(path)]).status).toBe(0);
}

function expectPlainFailure(r: CliResult, line: RegExp): void {
  expect(r.stderr).toMatch(line);
  expect(r.stderr).not.toMatch(/SqliteError|\n\s+at /);
  expect(r.status).toBe(1);
}

/**
 * Runs the command the way production meets a read-only folder. Tests run as
 * root, and root ignores file modes through CAP_DAC_OVERRIDE; setpriv drops
 * that capability (and CAP_DAC_READ_SEARCH) from the child, so the folder's
 * mode bits apply to it exactly as to the container's `node` user.
 */
function runWithoutFileOverride(args: string[]): CliResult {
  const command = [process.execPath, MAIN, ...args];
  const wrapped = process.getuid?.() === 0 ? ['setpriv', '--bounding-set', '-dac_override,-dac_read_search', ...command] : command;
  const r = spawnSync(wrapped[0]!, wrapped.slice(1), { env: { ...process.env, THREADGATE_CONFIG: '' }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a store that cannot be opened', () => {
  // Guards against: a text file as store.path crashed with `SqliteError: file is not a database`, a stack and exit 70.
  it.each(STORE_COMMANDS)('a text file as the store: %s says TG_STORE_OPEN_FAILED with the path, exit 1', (...args) => {
    const store = textStore();
    const r = runCli([...args, '--config', configFor(store)]);
    expectPlainFailure(r, new RegExp(`TG_STORE_OPEN_FAILED: cannot open the store at ${store}: file is not a database`));
  });

  // Guards against: a truncated store crashed with `SqliteError: database disk image is malformed` and a stack.
  it.each(STORE_COMMANDS)('a truncated copy of a real store: %s says TG_STORE_OPEN_FAILED, exit 1', (...args) => {
    const dir = tempDir();
    const whole = join(dir, 'whole.db');
    realStore(whole);
    const cut = join(dir, 'cut.db');
    writeFileSync(cut, readFileSync(whole).subarray(0, Math.floor(statSync(whole).size / 2)));
    const r = runCli([...args, '--config', configFor(cut)]);
    expectPlainFailure(r, new RegExp(`TG_STORE_OPEN_FAILED: cannot open the store at ${cut}: database disk image is malformed`));
  });

  // Guards against: an existing store in a folder the user cannot write crashed with `attempt to write a readonly database` and a stack.
  it.each(STORE_COMMANDS)('an existing store in a read-only folder: %s says TG_STORE_OPEN_FAILED, exit 1', (...args) => {
    const dir = join(tempDir(), 'data');
    const store = join(dir, 'threadgate.db');
    realStore(store);
    chmodSync(dir, 0o555);
    const r = runWithoutFileOverride([...args, '--config', configFor(store)]);
    expectPlainFailure(r, new RegExp(`TG_STORE_OPEN_FAILED: cannot open the store at ${store}: attempt to write a readonly database \\(this user cannot write the folder`));
  });

  // Guards against: a store the migrations cannot be applied to stopped with a different code (or a stack) than any other bad store.
  // (The log commands do not migrate such a file at all: test/cli/no-silent-store.test.ts.)
  it.each(STORE_COMMANDS.filter(([c]) => c === 'serve'))('another program\'s SQLite database: %s says TG_STORE_OPEN_FAILED, exit 1', (...args) => {
    const store = join(tempDir(), 'other.db');
    const other = new Database(store);
    other.exec('create table connector_state (anything text)'); // a name the first migration creates
    other.close();
    const r = runCli([...args, '--config', configFor(store)]);
    expectPlainFailure(r, new RegExp(`TG_STORE_OPEN_FAILED: cannot open the store at ${store}: migrating the store failed: .*connector_state.* already exists`));
  });

  it('serve also logs the failure as one line with its code', () => {
    const store = textStore();
    const r = runCli(['serve', '--port', '0', '--config', configFor(store)]);
    const logged = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toContainEqual(expect.objectContaining({ level: 60, code: 'TG_STORE_OPEN_FAILED', msg: expect.stringContaining(`cannot open the store at ${store}`) }));
    expect(r.status).toBe(1);
  });
});

/** A loopback port another server holds until the test ends. */
async function heldPort(): Promise<number> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as AddressInfo).port;
}

describe('a port that is taken', () => {
  // Guards against: `listen EADDRINUSE` printed a raw stack and exited 70.
  it('serve says TG_LISTEN_FAILED with the address, logs it, exit 1', async () => {
    const port = await heldPort();

    const r = runCli(['serve', '--port', String(port)], { cwd: tempDir() });
    expectPlainFailure(r, new RegExp(`^threadgate serve: TG_LISTEN_FAILED: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use\n$`));
    expect(r.stdout).toContain(`"code":"TG_LISTEN_FAILED","msg":"cannot listen on 127.0.0.1:${port}: the address is in use"`);
  });

  // Guards against: `threadgate sandbox` on a taken port printed a raw EADDRINUSE stack and exited 70.
  it('sandbox says TG_LISTEN_FAILED with the address, exit 1', async () => {
    const port = await heldPort();
    const r = runCli(['sandbox', '--port', String(port)]);
    expectPlainFailure(r, new RegExp(`^threadgate sandbox: TG_LISTEN_FAILED: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use\n$`));
  });
});
