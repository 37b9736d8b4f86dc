/**
 * `threadgate serve` with no settings prints the demo's commands as plain
 * lines a person copies as they are — no JSON escapes — whatever stdout is:
 * on a terminal (a pseudo-terminal made by util-linux `script`) and in a log
 * file (`npm start > log`); pasting them into a shell makes the round trip.
 * The `gateway_ready` line names the embedded sandbox's address,
 * organisation, room and throwaway token.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MAIN } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { sleep, until } from '../support/wait.ts';

/**
 * Stops a gateway the test started (`signal`) and waits until `child` exited (`script` waits for the gateway it
 * runs): the gateway writes its store's files in the test's folder until it stopped, and the folder goes next.
 */
async function stopAndWait(child: ChildProcess, signal: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    signal();
  } catch {
    return; // already gone
  }
  await Promise.race([exited, sleep(20_000)]);
}

function serveOnTerminal(): { output: () => string } {
  let out = '';
  const child = spawn('script', ['-qec', `'${process.execPath}' '${MAIN}' serve --port 0`, '/dev/null'], {
    cwd: tempDir(),
    env: { ...process.env, THREADGATE_CONFIG: '' },
    detached: true,
  });
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c.replace(/\r/g, '')));
  onTestFinished(() => stopAndWait(child, () => process.kill(-child.pid!, 'SIGTERM')));
  return { output: () => out };
}

/** The complete JSON log lines so far (the last one may still be on its way). */
const jsonLines = (text: string) =>
  text.split('\n').flatMap((l) => {
    if (!l.startsWith('{')) return [];
    try {
      return [JSON.parse(l) as Record<string, any>];
    } catch {
      return [];
    }
  });

describe('the demo steps', () => {
  it('on a terminal: prints each command alone on its lines, and pasted into a shell they make the round trip', { timeout: 30_000 }, async () => {
    const gw = serveOnTerminal();
    // The log goes out through pino's own buffered stream, the text straight to the terminal: wait for both.
    await until(async () => gw.output().includes('   Then the reply comes back') && jsonLines(gw.output()).some((l) => l.event === 'gateway_ready'), 15_000, 'the demo text and the ready line');
    const text = gw.output();
    const commands = text.split('\n').filter((l) => /^ {3}(curl|CHAT=)/.test(l)).map((l) => l.trim());
    expect(commands).toHaveLength(3);
    expect(commands.join('\n')).not.toContain('\\"');

    const ready = jsonLines(text).find((l) => l.event === 'gateway_ready')!;
    expect(ready.platform).toBe('embedded sandbox');
    expect(ready.sandbox).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), organization_id: expect.any(String), room_id: expect.any(String), sandbox_token: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(commands[1]).toContain(ready.sandbox.url);

    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    expect(JSON.parse(execFileSync('bash', ['-c', commands[0]!], { env, encoding: 'utf8' }))).toMatchObject({ accepted: 1, thread_id: 'demo:order-42' });
    await until(async () => jsonLines(gw.output()).some((l) => l.msg === 'messages posted to the platform'), 10_000, 'the message posted');
    expect(JSON.parse(execFileSync('bash', ['-c', `${commands[1]}\n${commands[2]}`], { env, encoding: 'utf8' }))).toMatchObject({ type: 'msg', message: 'It ships today.' });
    await until(async () => jsonLines(gw.output()).some((l) => l.msg === 'delivered'), 10_000, 'the reply delivered');
  });

  it('in a log file: the same plain lines beside the JSON, and pasted from the file they make the round trip', { timeout: 30_000 }, async () => {
    const dir = tempDir();
    const logFile = join(dir, 'gateway.log');
    const fd = openSync(logFile, 'w');
    const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0'], { cwd: dir, env: { ...process.env, THREADGATE_CONFIG: '' }, stdio: ['ignore', fd, fd] });
    onTestFinished(() => stopAndWait(child, () => child.kill('SIGTERM')));
    const log = () => readFileSync(logFile, 'utf8');
    await until(async () => log().includes('   Then the reply comes back') && jsonLines(log()).some((l) => l.event === 'demo'), 15_000, 'the demo text in the file');
    const commands = log().split('\n').filter((l) => /^ {3}(curl|CHAT=)/.test(l)).map((l) => l.trim());
    expect(commands).toHaveLength(3);
    expect(commands.join('\n')).not.toContain('\\"');
    // The JSON event is there too, for machines.
    expect(jsonLines(log()).find((l) => l.event === 'demo')?.steps).toHaveLength(2);

    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    expect(JSON.parse(execFileSync('bash', ['-c', commands[0]!], { env, encoding: 'utf8' }))).toMatchObject({ accepted: 1, thread_id: 'demo:order-42' });
    await until(async () => jsonLines(log()).some((l) => l.msg === 'messages posted to the platform'), 10_000, 'the message posted');
    expect(JSON.parse(execFileSync('bash', ['-c', `${commands[1]}\n${commands[2]}`], { env, encoding: 'utf8' }))).toMatchObject({ type: 'msg', message: 'It ships today.' });
    await until(async () => jsonLines(log()).some((l) => l.msg === 'delivered'), 10_000, 'the reply delivered');
  });
});
