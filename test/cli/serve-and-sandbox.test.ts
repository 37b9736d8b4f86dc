import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('threadgate serve', () => {
  it('with no configuration starts against the embedded sandbox, answers health checks, and exits 0 on SIGTERM', async () => {
    const dir = tempDir();
    const gw = startCli(['serve', '--port', '0'], { cwd: dir });
    const ready = await gw.waitForLine((l) => l.event === 'gateway_ready');
    expect(ready.platform).toBe('embedded sandbox');
    const url = String(ready.url);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const readiness = await fetch(`${url}/readyz`);
    expect(readiness.status).toBe(200);
    const body = (await readiness.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('ready');
    expect(body.checks.migrations).toMatch(/^current/);

    const missing = await fetch(`${url}/no/such/route`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'TG_NOT_FOUND' });

    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(gw.lines.some((l) => l.msg === 'stopped')).toBe(true);
  });

  it('a SIGTERM sent the moment gateway_ready is read stops it gracefully: exit 0, `stopped` logged', async () => {
    // An orchestrator that stops a container as soon as it reports ready; before the handler was taken ahead of the
    // start's end, the signal came first and killed the process (exit by signal, no graceful stop).
    for (let round = 0; round < 3; round++) {
      const gw = startCli(['serve', '--port', '0'], { cwd: tempDir() });
      await gw.waitForLine((l) => l.event === 'gateway_ready');
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
      expect(gw.lines.some((l) => l.msg === 'stopped')).toBe(true);
    }
  });

  it('with no configuration prints the demo steps, and running them makes the round trip', async () => {
    const dir = tempDir();
    const gw = startCli(['serve', '--port', '0'], { cwd: dir });
    const demo = await gw.waitForLine((l) => l.event === 'demo');
    const [one, two] = demo.steps as string[];
    const step1 = one!.replace(/^1\. A customer writes: /, '');
    const step2 = two!.replace(/^2\. An agent answers in that chat: /, '').replace(/ — the reply.*$/, '');
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
    expect(JSON.parse(execFileSync('bash', ['-c', step1], { env, encoding: 'utf8' }))).toMatchObject({ accepted: 1, thread_id: 'demo:order-42' });
    await gw.waitForLine((l) => l.msg === 'messages posted to the platform');
    expect(JSON.parse(execFileSync('bash', ['-c', step2], { env, encoding: 'utf8' }))).toMatchObject({ type: 'msg', message: 'It ships today.' });
    const reply = await gw.waitForLine((l) => String(l.msg).startsWith('agent reply'));
    expect(reply).toMatchObject({ connector: 'demo', text: 'It ships today.', thread_id: 'demo:order-42' });
    await gw.waitForLine((l) => l.msg === 'delivered');
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });

  it('refuses to start on invalid settings, naming the path, exit 1', async () => {
    const gw = startCli(['serve'], { env: { THREADGATE_CONFIG: '/nonexistent/threadgate.yaml' } });
    expect(await gw.exited).toBe(1);
  });
});

describe('threadgate sandbox', () => {
  it('prints one sandbox_ready line whose token works, and exits 0 on SIGTERM', async () => {
    const org = '11111111-2222-4333-8444-555555555555';
    const sb = startCli(['sandbox', '--port', '0', '--organization-id', org, '--token', 'tok-123']);
    const ready = await sb.waitForLine((l) => l.event === 'sandbox_ready');
    expect(ready).toMatchObject({ organization_id: org, token: 'tok-123', token_type: 'Token' });
    expect(String(ready.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(String(ready.room_id)).toMatch(/^[0-9a-f-]{36}$/);

    const list = await fetch(`${String(ready.url)}/api/v5/orgs/${org}/unified_messaging`, {
      headers: { authorization: 'Token tok-123' },
    });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ results: [] });
    const denied = await fetch(`${String(ready.url)}/api/v5/orgs/${org}/unified_messaging`, {
      headers: { authorization: 'Token wrong' },
    });
    expect(denied.status).toBe(401);

    sb.child.kill('SIGTERM');
    expect(await sb.exited).toBe(0);
  });

  it('a SIGTERM sent the moment sandbox_ready is read stops it: exit 0', async () => {
    for (let round = 0; round < 3; round++) {
      const sb = startCli(['sandbox', '--port', '0']);
      await sb.waitForLine((l) => l.event === 'sandbox_ready');
      sb.child.kill('SIGTERM');
      expect(await sb.exited).toBe(0);
    }
  });

  it('refuses a malformed --organization-id with exit 2', async () => {
    const sb = startCli(['sandbox', '--organization-id', 'not-a-uuid']);
    expect(await sb.exited).toBe(2);
  });
});
