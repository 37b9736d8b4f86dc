/**
 * docs/try-it-locally.md's scripts work as the guide says, run as real
 * processes and used only through what they print: scripts/try-mail-servers
 * (its settings pass `config check` and run `serve`; its test mail becomes a
 * chat; the agent's answer arrives in the customer's mailbox; it stops its
 * own servers, and only those, and removes its folder) and
 * scripts/try-replicas (two replicas on one PostgreSQL and one sandbox: ready,
 * a message through replica 1 reaches the sandbox, the agent's answer is
 * delivered; SIGTERM stops every process it started).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { onTestFinished, describe, expect, it } from 'vitest';
import { SECTIONS as MAIL } from '../../scripts/try/mail.ts';
import { SECTIONS as REPLICAS } from '../../scripts/try/replicas.ts';
import { READY } from '../../scripts/try/common.ts';
import { runCliAsync, startCli } from '../support/cli.ts';
import { mailServers } from '../support/mail-servers.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const ROOT = join(import.meta.dirname, '../..');
/** This Node.js first on PATH: the scripts' `#!/usr/bin/env node`, and the `node` of the commands they print. */
const ENV = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
const START_MS = 60_000;

interface Script { output: () => string; pid: number; exited: Promise<number | null>; stop(): Promise<number | null> }

/** Runs a script of scripts/ from the repository's root, until it prints its ready line; SIGTERMed after the test. */
async function startScript(name: string): Promise<Script> {
  const child = spawn(join(ROOT, 'scripts', name), [], { cwd: ROOT, env: ENV });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  onTestFinished(async () => void (await stop()));
  let gone = false;
  void exited.then(() => (gone = true));
  await until(() => gone || output.includes(`${name}: ${READY};`), START_MS, `${name}: ready`);
  expect(gone, output).toBe(false);
  return { output: () => output, pid: child.pid!, exited, stop };
}

/** The lines of a printed section: after its heading line and one blank line, up to the next blank line. */
function section(output: string, heading: string): string[] {
  const lines = output.split('\n');
  const at = lines.findIndex((l) => l.startsWith(heading));
  expect(at, `${heading} in:\n${output}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', at + 2);
  return lines.slice(at + 2, end);
}

/** A printed command, run by bash as it is. */
function bash(command: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', command], { cwd: ROOT, env: ENV, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function bashAsync(command: string): Promise<{ status: number | null; stdout: string }> {
  const child = spawn('bash', ['-c', command], { cwd: ROOT, env: ENV });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout })));
}

/** Whether something on 127.0.0.1 accepts connections at `port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Whether the process runs (a zombie has stopped: its parent, for PostgreSQL init, only has to reap it). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

const getJson = async (url: string) => (await fetch(url)).json() as Promise<Record<string, any>>;

describe('scripts/try-mail-servers', () => {
  it('prints settings, a send command and a read command that make the round trip, then stops its servers only', { timeout: 120_000 }, async () => {
    const script = await startScript('try-mail-servers');
    const out = script.output();
    const settings = section(out, MAIL.settings).join('\n');
    const [send] = section(out, MAIL.send);
    const [readInbox] = section(out, MAIL.read);
    const ports = [...out.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
    const dir = /running, in (\S+?):?\s*$/m.exec(out)?.[1];
    expect(ports.length).toBeGreaterThanOrEqual(4);
    expect(dir && existsSync(dir)).toBe(true);
    for (const port of ports) expect(await listening(port), `port ${port}`).toBe(true);

    const file = join(tempDir(), 'mail.yaml');
    writeFileSync(file, `${settings}\n`);
    const check = await runCliAsync(['config', 'check', '--config', file]);
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);

    const serve = startCli(['serve', '--config', file, '--port', '0']);
    const ready = await serve.waitForLine((l) => l.event === 'gateway_ready', 30_000);
    const sandbox = (ready.sandbox as { url: string }).url;

    const sent = await bashAsync(send!);
    expect(sent.status).toBe(0);
    // The mail's own text, as the printed command has it, arrives as a message of a chat.
    const text = /\\r\\n\\r\\n(.+?)\\r\\n'/.exec(send!)![1]!;
    let chatId = '';
    await until(async () => {
      for (const { chat } of (await getJson(`${sandbox}/_sandbox/chats`)).results as { chat: { id: string } }[]) {
        const messages = (await getJson(`${sandbox}/_sandbox/chats/${chat.id}/messages`)).results as { message: string }[];
        if (messages.some((m) => m.message.includes(text))) chatId = chat.id;
      }
      return chatId !== '';
    }, 20_000, 'the test mail as a chat in the sandbox');

    const answer = `Shipped today, ref ${process.pid}-${Date.now()}.`;
    const posted = await fetch(`${sandbox}/_sandbox/chats/${chatId}/agent_messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: answer }) });
    expect(posted.status).toBe(201);
    await until(async () => (await bashAsync(readInbox!)).stdout.includes(answer), 20_000, "the reply in the customer's mailbox");

    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(await script.stop()).toBe(0);
    for (const port of ports) expect(await listening(port), `port ${port} after the stop`).toBe(false);
    expect(existsSync(dir!)).toBe(false);
    // The run's own mail servers (the global setup's) still answer.
    const shared = mailServers();
    for (const port of [shared.imap.port, shared.smtp.port, shared.submission.port]) expect(await listening(port)).toBe(true);
  });
});

describe('scripts/try-replicas', () => {
  it('starts two ready replicas on PostgreSQL and one sandbox, delivers an agent reply, and stops them all', { timeout: 120_000 }, async () => {
    const script = await startScript('try-replicas');
    const out = script.output();
    const pids = [...out.matchAll(/\(pid (\d+);/g)].map((m) => Number(m[1]));
    const ports = [...out.matchAll(/^\S.*?127\.0\.0\.1:(\d+)/gm)].slice(0, 4).map((m) => Number(m[1]));
    const dir = /removes (\S+)$/m.exec(out)?.[1];
    expect(pids).toHaveLength(4); // PostgreSQL, the sandbox, two replicas
    expect(new Set(ports).size).toBe(4);
    expect(dir && existsSync(dir)).toBe(true);

    const readyz = section(out, REPLICAS.readyz);
    expect(readyz).toHaveLength(2);
    for (const command of readyz) expect(bash(command).stdout.trim()).toBe('200');

    const [customer] = section(out, REPLICAS.customer);
    const accepted = JSON.parse(bash(customer!).stdout) as { accepted: number; thread_id: string };
    expect(accepted.accepted).toBe(1);

    // The message becomes a chat once a replica posted it: the first line of the agent's step finds it by its thread.
    const [findChat, answer] = section(out, REPLICAS.agent);
    await until(() => /^[0-9a-f-]{36}$/.test(bash(`${findChat}\necho "$CHAT"`).stdout.trim()), 20_000, 'the chat in the sandbox');
    const agent = bash(`${findChat}\n${answer}\necho; echo "chat=$CHAT"`);
    expect(agent.status).toBe(0);
    const chat = /chat=(\S+)/.exec(agent.stdout)?.[1];
    expect(JSON.parse(agent.stdout.split('\n')[0]!)).toMatchObject({ chat_id: chat, type: 'msg' });

    const [deliveries, grep] = section(out, REPLICAS.delivered);
    await until(() => {
      const rows = JSON.parse(bash(`${deliveries} --json`).stdout || '[]') as { status: string; threadId: string; chatId: string }[];
      return rows.some((r) => r.status === 'delivered' && r.threadId === accepted.thread_id && r.chatId === chat);
    }, 20_000, 'the reply delivered, in the delivery log');
    expect(bash(grep!).stdout).toContain(`"chat_id":"${chat}"`);

    expect(await script.stop()).toBe(0);
    for (const pid of pids) expect(alive(pid), `pid ${pid} after the stop`).toBe(false);
    for (const port of ports) expect(await listening(port), `port ${port} after the stop`).toBe(false);
    expect(existsSync(dir!)).toBe(false);
  });
});
