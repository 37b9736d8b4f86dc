/**
 * The entry points as an operator types them. A SIGTERM or SIGINT to the
 * process `npm start` (or `npm run sandbox`) started, npm's own, stops the
 * gateway gracefully: npm passes the signal on to node, which the script
 * `exec`s (no shell stays between them to swallow it). And under a Node.js
 * older than 24, `threadgate`, `npm start` and `npm test` say in one line
 * that Node.js 24 is needed, which version they found, and how to get it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tooOldLine } from '../../src/cli/node-version.js';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE_BIN = dirname(process.execPath);

interface Spawned {
  pid: number;
  output: () => string;
  lines: () => Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A command in its own process group (killed whole after the test), its output collected. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  onTestFinished(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
  });
  const lines = () =>
    out.split('\n').flatMap((l) => {
      try {
        return l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  return { pid: child.pid!, output: () => out, lines, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The process ids whose parent is `pid`. */
const childrenOf = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((l) => l.trim()).filter(Boolean).map(Number);

const commandOf = (pid: number): string => execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();

const refused = async (url: string) => fetch(`${url}/healthz`).then(() => false, () => true);

/** The gateway's environment for a test: Node 24 first on PATH, no settings, a store of its own. */
const gatewayEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${NODE_BIN}:${process.env.PATH}`,
  THREADGATE_CONFIG: '',
  THREADGATE_STORE_PATH: join(tempDir(), 'gateway.db'),
});

describe('a signal to npm', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s to `npm start` stops the gateway gracefully within seconds and frees its port', async (signal) => {
    const npm = run('npm', ['start', '--', '--port', '0'], gatewayEnv());
    await until(async () => npm.lines().some((l) => l.event === 'gateway_ready'), 20_000, 'gateway_ready');
    const ready = npm.lines().find((l) => l.event === 'gateway_ready')!;
    // npm's only child is node itself: the script `exec`s it, so no shell stands between them.
    const [gatewayPid, ...others] = childrenOf(npm.pid);
    expect(others).toEqual([]);
    expect(commandOf(gatewayPid!)).toMatch(/^node .*src\/cli\/threadgate\.js serve/);
    expect(await refused(String(ready.url))).toBe(false);

    process.kill(npm.pid, signal);
    await until(async () => !alive(gatewayPid!), 8_000, 'the gateway process gone');
    expect(await refused(String(ready.url))).toBe(true);
    await npm.exited;
    expect(npm.lines().some((l) => l.msg === 'stopped')).toBe(true);
  });

  it('SIGTERM to `npm run sandbox` stops the sandbox and frees its port', async () => {
    const npm = run('npm', ['run', 'sandbox', '--', '--port', '0'], gatewayEnv());
    await until(async () => npm.lines().some((l) => l.event === 'sandbox_ready'), 20_000, 'sandbox_ready');
    const ready = npm.lines().find((l) => l.event === 'sandbox_ready')!;
    const url = String(ready.url);
    const [sandboxPid] = childrenOf(npm.pid);
    expect(commandOf(sandboxPid!)).toMatch(/^node .*src\/cli\/threadgate\.js sandbox/);
    expect(await fetch(`${url}/_sandbox/chats`).then((r) => r.status)).toBeLessThan(500);

    process.kill(npm.pid, 'SIGTERM');
    await until(async () => await refused(url), 8_000, 'the sandbox port freed');
    await until(async () => !alive(sandboxPid!), 8_000, 'the sandbox process gone');
    await npm.exited;
  });
});

describe('started by npm exec (npx threadgate serve)', () => {
  // npm exec runs the command through `sh -c`: the shell dies of npm's SIGTERM without passing it on.
  it('stops gracefully when the shell npm started it from is gone, and frees its port', async () => {
    const main = join(ROOT, 'src/cli/threadgate.js');
    const shell = run('sh', ['-c', `'${process.execPath}' '${main}' serve --port 0; echo shell-done`], { ...gatewayEnv(), npm_command: 'exec' });
    await until(async () => shell.lines().some((l) => l.event === 'gateway_ready'), 20_000, 'gateway_ready');
    const url = String(shell.lines().find((l) => l.event === 'gateway_ready')!.url);
    const [gatewayPid] = childrenOf(shell.pid);
    process.kill(shell.pid, 'SIGKILL');
    await until(async () => !alive(gatewayPid!), 8_000, 'the gateway process gone');
    expect(await refused(url)).toBe(true);
    expect(shell.lines().find((l) => l.msg === 'the npm process that started threadgate is gone: stopping as on SIGTERM')).toBeDefined();
    expect(shell.lines().some((l) => l.msg === 'stopped')).toBe(true);
  });
});

describe('under a Node.js older than 24', () => {
  it('the line names the version found and the way to Node.js 24; a recent one passes', () => {
    expect(tooOldLine('v20.20.2')).toBe(
      'threadgate needs Node.js 24 or later; this is Node.js v20.20.2. Run it through scripts/with-node24 (e.g. scripts/with-node24 npm start), which installs Node.js 24 into ~/.cache/threadgate once, or install Node.js 24.',
    );
    expect(tooOldLine('v24.0.0')).toBeUndefined();
    expect(tooOldLine('v25.2.1')).toBeUndefined();
  });

  // The machine's own Node.js (Debian's, 20 here and on CI): run only where it is older than 24.
  const oldNode = systemNode();
  it.skipIf(oldNode === undefined).each([
    ['threadgate --help', (node: string) => run(node, ['src/cli/threadgate.js', '--help'], oldNodeEnv())],
    ['npm start', () => run('npm', ['start'], oldNodeEnv())],
    ['npm test', () => run('npm', ['test'], oldNodeEnv())],
  ])('`%s` says so in one line and exits 1', async (_name, start) => {
    const spawned = start(oldNode!.path);
    const { code } = await spawned.exited;
    expect(code).toBe(1);
    const line = `threadgate needs Node.js 24 or later; this is Node.js ${oldNode!.version}.`;
    const ours = spawned.output().split('\n').filter((l) => l.startsWith('threadgate needs'));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toContain(line);
    expect(ours[0]).toContain('scripts/with-node24');
    expect(spawned.output()).not.toMatch(/SyntaxError|enableCompileCache/);
  });
});

/** Debian's node (/usr/bin/node) when it is older than 24. */
function systemNode(): { path: string; version: string } | undefined {
  try {
    const version = execFileSync('/usr/bin/node', ['--version'], { encoding: 'utf8' }).trim();
    return tooOldLine(version) === undefined ? undefined : { path: '/usr/bin/node', version };
  } catch {
    return undefined;
  }
}

/** PATH with only the system's folders: its node and npm. */
const oldNodeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: '/usr/bin:/bin', THREADGATE_CONFIG: '', THREADGATE_STORE_PATH: join(tempDir(), 'gateway.db') });
