/**
 * `threadgate connector new`: the folder it writes works outside the
 * repository as written — `npm install` (the gateway as a dependency from
 * this install, the rest from the registry), `npm test` (the contract and a
 * round trip through a real gateway) and `npx tsc --noEmit` pass — and the
 * module runs under `serve` when settings elsewhere name it. Every kind.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCliAsync, startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

const run = promisify(execFile);
const env = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH}`, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' };

/** Runs `command` in `cwd`; resolves with its output, rejects with it and the exit code. */
async function sh(cwd: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} in ${cwd} exited ${e.code}:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

describe('threadgate connector new', () => {
  /** Per kind: the files written, and at least how many tests its test file has. */
  const kinds = { webhook: [7, 7], poller: [7, 7], ticket: [9, 18] } as const;
  it.each(Object.keys(kinds) as (keyof typeof kinds)[])('writes a %s connector whose folder installs, tests and type-checks as written', { timeout: 480_000 }, async (kind) => {
    const [fileCount, testCount] = kinds[kind];
    const parent = tempDir('scaffold-');
    const made = await runCliAsync(['connector', 'new', 'chat-line', '--kind', kind], { cwd: parent });
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const dir = join(parent, 'chat-line');
    expect(made.stdout).toContain(`wrote ${fileCount} files in ${dir}:`);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type: string; dependencies: Record<string, string> };
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies.threadgate).toBe(`file:${join(import.meta.dirname, '../..')}`);

    await sh(dir, 'npm', ['install', '--prefer-offline']);
    const tested = await sh(dir, 'npm', ['test']);
    expect(tested).toMatch(/Test Files\s+1 passed \(1\)/);
    expect(Number(/Tests\s+(\d+) passed/.exec(tested)?.[1])).toBeGreaterThanOrEqual(testCount);
    expect(tested).not.toMatch(/failed/);
    await sh(dir, 'npx', ['tsc', '--noEmit']);
    const contract = await sh(dir, 'npx', ['threadgate', 'connector', 'test', './chat-line.ts']);
    expect(contract).toContain('6 checks passed');
  });

  it('runs under serve from settings that name its module, and its example settings pass config check', async () => {
    const parent = tempDir('scaffold-');
    expect((await runCliAsync(['connector', 'new', 'chatline'], { cwd: parent })).status).toBe(0);
    expect(await runCliAsync(['config', 'check', '--config', join(parent, 'chatline/settings.example.yaml')])).toMatchObject({ status: 0, stdout: expect.stringContaining(': ok') });
    const settings = join(parent, 'threadgate.yaml');
    writeFileSync(settings, 'connectors:\n  - name: chatline\n    type: chatline\n    module: ./chatline/chatline.ts\n    inbound_secret: a-long-secret-of-the-test\n    reply_url: http://127.0.0.1:9/replies\n');
    const gw = startCli(['serve', '--port', '0', '--config', settings], { cwd: parent });
    const ready = await gw.waitForLine((l) => l.event === 'gateway_ready');
    expect(ready.connectors).toEqual(['chatline']);
    const unsigned = await fetch(`${String(ready.url)}/connectors/chatline/messages`, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ code: 'TG_SIGNATURE_INVALID' });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });

  it('refuses a bad type, a taken folder and a kind it does not write, naming why', async () => {
    const parent = tempDir('scaffold-');
    expect(await runCliAsync(['connector', 'new', 'Chat_Line'], { cwd: parent })).toMatchObject({ status: 2, stderr: expect.stringContaining('lower-case letters, digits and dashes') });
    expect(await runCliAsync(['connector', 'new', 'desk', '--kind', 'feed'], { cwd: parent })).toMatchObject({ status: 2, stderr: expect.stringContaining('--kind must be webhook, poller, ticket, got "feed"') });
    expect((await runCliAsync(['connector', 'new', 'desk'], { cwd: parent })).status).toBe(0);
    expect(await runCliAsync(['connector', 'new', 'desk'], { cwd: parent })).toMatchObject({ status: 1, stderr: expect.stringContaining('TG_SCAFFOLD_FOLDER_TAKEN') });
  });
});
