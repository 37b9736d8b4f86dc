/**
 * The embedded sandbox across restarts of `serve`, and played from the
 * command line: `threadgate sandbox chats` lists its chats with their thread
 * ids, `threadgate sandbox reply` answers as an agent (the reply reaches the
 * connector as from the platform), and after a restart the chat, the ids and
 * the token are the same and a reply still goes through. Real processes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliAsync, startCli, type LongRunning } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

async function serve(cwd: string): Promise<{ gw: LongRunning; ready: Record<string, any> }> {
  const gw = startCli(['serve', '--port', '0'], { cwd });
  return { gw, ready: await gw.waitForLine((l) => l.event === 'gateway_ready') };
}

async function stop(gw: LongRunning): Promise<void> {
  gw.child.kill('SIGTERM');
  expect(await gw.exited).toBe(0);
}

describe('threadgate sandbox chats and reply', () => {
  it('list the chats and answer as an agent; after a restart the chat, ids and token are the same, and a reply still reaches the connector', async () => {
    const dir = tempDir();
    const first = await serve(dir);
    const message = { thread_id: 'order-7', messages: [{ message_id: 'm1', sender_id: 'ann@example.com', body: 'Where is my order?' }] };
    const posted = await fetch(`${first.ready.url}/connectors/demo/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
    expect(posted.status).toBe(202);
    await first.gw.waitForLine((l) => l.msg === 'messages posted to the platform');

    const listed = await runCliAsync(['sandbox', 'chats', '--json'], { cwd: dir });
    expect(listed.stderr).toBe('');
    const chats = JSON.parse(listed.stdout) as { chat_id: string; thread_id: string; visitor: string }[];
    expect(chats).toEqual([{ chat_id: expect.any(String), thread_id: 'demo:order-7', visitor: 'ann@example.com', ended: false }]);
    const table = await runCliAsync(['sandbox', 'chats'], { cwd: dir });
    expect(table.stdout).toMatch(new RegExp(`^${chats[0]!.chat_id}\\s+demo:order-7\\s+ann@example.com\\s+no$`, 'm'));

    writeFileSync(join(dir, 'notes.txt'), 'line one\n');
    const replied = await runCliAsync(['sandbox', 'reply', 'demo:order-7', 'It ships today.', '--file', join(dir, 'notes.txt')], { cwd: dir });
    expect(replied).toMatchObject({ status: 0, stdout: expect.stringContaining(`replied in chat ${chats[0]!.chat_id}`) });
    expect(await first.gw.waitForLine((l) => String(l.msg).startsWith('agent reply'))).toMatchObject({ text: 'It ships today.', thread_id: 'demo:order-7' });
    await first.gw.waitForLine((l) => l.msg === 'delivered');
    await stop(first.gw);

    const stopped = await runCliAsync(['sandbox', 'chats'], { cwd: dir });
    expect(stopped).toMatchObject({ status: 1, stderr: expect.stringContaining('TG_SANDBOX_UNREACHABLE') });
    expect(stopped.stderr).toContain('is threadgate serve running?');

    const second = await serve(dir);
    expect(second.ready.sandbox).toEqual(first.ready.sandbox);
    expect(JSON.parse((await runCliAsync(['sandbox', 'chats', '--json'], { cwd: dir })).stdout)).toEqual(chats);
    const again = await runCliAsync(['sandbox', 'reply', chats[0]!.chat_id, 'Tracking number 42.'], { cwd: dir });
    expect(again.status).toBe(0);
    expect(await second.gw.waitForLine((l) => String(l.msg).startsWith('agent reply'))).toMatchObject({ text: 'Tracking number 42.', thread_id: 'demo:order-7' });
    await stop(second.gw);
  });

  it('say why when there is no sandbox to talk to', async () => {
    const dir = tempDir();
    expect(await runCliAsync(['sandbox', 'chats'], { cwd: dir })).toMatchObject({ status: 1, stderr: expect.stringContaining('no sandbox has run with these settings yet') });
    writeFileSync(join(dir, 'real.yaml'), 'platform:\n  url: https://api.platform.example\n  organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10\n  token: t\nserver:\n  public_url: https://gw.example.com\n');
    expect(await runCliAsync(['sandbox', 'reply', 'x', 'hi', '--config', join(dir, 'real.yaml')], { cwd: dir })).toMatchObject({ status: 2, stderr: expect.stringContaining('there is no embedded sandbox') });
  });
});
