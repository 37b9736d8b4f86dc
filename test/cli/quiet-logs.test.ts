/**
 * What a new operator reads in `serve`'s output, as a real process: the
 * embedded sandbox's request lines (the gateway's own probes of it every
 * 30 s among them) only at debug, and with `--pretty` one short line per
 * failed delivery attempt: its error's message, no stack.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.ts';
import { closedPort } from '../support/ports.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

/** Requests to the embedded sandbox, as a probe of the gateway's would make them. */
async function callSandbox(url: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) expect((await fetch(`${url}/_sandbox/chats`)).status).toBe(200);
}

const sandboxRequestLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l.room === 'sandbox' && (l.msg === 'incoming request' || l.msg === 'request completed'));

describe("the embedded sandbox's request lines", () => {
  it('are not written at info', async () => {
    const gw = startCli(['serve', '--port', '0'], { cwd: tempDir() });
    const ready = await gw.waitForLine((l) => l.event === 'gateway_ready');
    const sandboxUrl = (ready.sandbox as { url: string }).url;
    await callSandbox(sandboxUrl, 3);
    // A line the gateway writes after the calls: the log has caught up with them.
    expect((await fetch(`${String(ready.url)}/no/such/route`)).status).toBe(404);
    await gw.waitForLine((l) => l.room === 'http' && l.msg === 'request completed' && (l.res as { statusCode?: number } | undefined)?.statusCode === 404);
    expect(sandboxRequestLines(gw.lines)).toEqual([]);
  });

  it('are written at debug, two per request', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tg.yaml'), 'log:\n  level: debug\n');
    const gw = startCli(['serve', '--port', '0', '--config', join(dir, 'tg.yaml')], { cwd: dir });
    const ready = await gw.waitForLine((l) => l.event === 'gateway_ready');
    const before = sandboxRequestLines(gw.lines).length;
    await callSandbox((ready.sandbox as { url: string }).url, 2);
    await until(async () => sandboxRequestLines(gw.lines).length >= before + 4, 5_000, 'four sandbox request lines');
    const lines = sandboxRequestLines(gw.lines).slice(before);
    expect(lines.every((l) => l.level === 20)).toBe(true);
    expect(lines.filter((l) => l.msg === 'incoming request').map((l) => (l.req as { url: string }).url)).toEqual(['/_sandbox/chats', '/_sandbox/chats']);
  });
});

describe('--pretty and a delivery that keeps failing', () => {
  it('writes one line per failed attempt, with the message and no stack', async () => {
    const dir = tempDir();
    const settings = [
      'jobs: { backoff_first: 50ms, backoff_max: 100ms }',
      'connectors:',
      '  - name: helpdesk',
      '    type: webhook',
      '    allow_unsigned: true',
      `    outbound_url: http://127.0.0.1:${await closedPort()}/hook`,
      '    outbound_secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ];
    writeFileSync(join(dir, 'tg.yaml'), `${settings.join('\n')}\n`);
    const cli = startCli(['serve', '--port', '0', '--pretty', '--config', join(dir, 'tg.yaml')], { cwd: dir });
    let out = '';
    cli.child.stdout.on('data', (chunk: Buffer | string) => (out += String(chunk)));
    await until(async () => / event=gateway_ready /.test(out), 15_000, 'the gateway_ready line');
    const url = / url=(http:\/\/[^\s"]+)/.exec(out)![1]!;
    const sandboxUrl = / sandbox\.url=(http:\/\/[^\s"]+)/.exec(out)![1]!;

    const message = { thread_id: 't1', messages: [{ message_id: 'm1', sender_id: 'ann@example.com', body: 'Hello' }] };
    const posted = await fetch(`${url}/connectors/helpdesk/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) });
    expect(posted.status).toBe(202);
    const chatId = async () =>
      ((await (await fetch(`${sandboxUrl}/_sandbox/chats?thread_id=helpdesk:t1`)).json()) as { results: { chat: { id: string } }[] }).results[0]?.chat.id;
    await until(async () => (await chatId()) !== undefined, 10_000, 'the chat');
    const agent = await fetch(`${sandboxUrl}/_sandbox/chats/${await chatId()}/agent_messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"On it"}' });
    expect(agent.status).toBeLessThan(300);

    const failures = () => out.split('\n').filter((l) => / WARN  \[jobs\] job failed /.test(l));
    await until(async () => failures().length >= 3, 10_000, 'three failed attempts');
    for (const line of failures()) {
      expect(line).toMatch(/kind=connector\.deliver attempt=\d+ err\.type=OutboundWebhookError err\.message="[^"]*ECONNREFUSED/);
      expect(line).not.toContain('stack');
    }
    expect(out).not.toMatch(/^\s+at /m);
  });
});
