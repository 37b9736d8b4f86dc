/**
 * SIGHUP to a running `threadgate serve`: the settings file is read again, a
 * new platform token is applied to the running platform client and paused
 * connectors resume at once; other changes are named as needing a restart;
 * a broken file changes nothing. The gateway runs as a real child process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startCli, type LongRunning } from '../support/cli.ts';
import { RECORDER_MODULE } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';
import { startTestSandbox } from '../sandbox/support.ts';

// The pause's own re-checks come after 1 s, 2 s, 4 s, 8 s: resuming within 3 s of the SIGHUP is the signal's doing.
const RESUME_AFTER_HUP_MS = 3_000;

const event = (gw: LongRunning, name: string, from = 0) => gw.waitForLine((l) => l.event === name && gw.lines.indexOf(l) >= from, 10_000);

describe('threadgate serve and SIGHUP', () => {
  // Guards against: a rotated platform token needing a restart (SIGHUP ended the process) while every message waits or dies.
  it('applies a new platform token from the reloaded file: the paused connector resumes and its messages are posted', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const fresh = (await sandbox.call('POST', '/_sandbox/tokens', { scopes: ['settings'] })).body.token as string;
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    const settings = (token: string, concurrency = 4) => ({
      platform: { url: proxy.url, organization_id: sandbox.organizationId, token },
      store: { path: 'gateway.db' },
      jobs: { concurrency },
      log: { level: 'info' },
      connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE, room_id: sandbox.roomId }],
    });
    writeFileSync(file, stringify(settings(sandbox.token)));
    const gw = startCli(['serve', '--config', file, '--port', '0'], { cwd: dir });
    const url = String((await gw.waitForLine((l) => l.event === 'gateway_ready')).url);

    proxy.revoked.add(sandbox.token); // the old token is rotated away on the platform
    const submitted = await fetch(`${url}/connectors/desk/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadKey: 'T-hup', messageId: 'h-1', senderId: 'ann@example.com', body: 'after the rotation' }),
    });
    expect(submitted.status).toBe(202);
    expect(await event(gw, 'connector_paused')).toMatchObject({ connector: 'desk', status: 401 });
    expect((await fetch(`${url}/readyz?strict=1`)).status).toBe(503);

    // A broken file changes nothing and the process keeps running.
    writeFileSync(file, 'platform: [not, a, mapping');
    let from = gw.lines.length;
    gw.child.kill('SIGHUP');
    expect(await event(gw, 'settings_reload_failed', from)).toMatchObject({ file });

    writeFileSync(file, stringify(settings(fresh, 2)));
    from = gw.lines.length;
    gw.child.kill('SIGHUP');
    const hup = Date.now();
    const reloaded = await event(gw, 'settings_reloaded', from);
    expect(reloaded).toMatchObject({ applied: ['platform.token'], restart_needed: ['jobs.concurrency'], msg: 'SIGHUP: applied platform.token; jobs.concurrency needs a restart' });
    expect(await event(gw, 'connector_resumed', from)).toMatchObject({ connector: 'desk' });
    expect(Date.now() - hup).toBeLessThan(RESUME_AFTER_HUP_MS);

    // The old token is still refused: the post went out with the new one.
    await gw.waitForLine((l) => l.msg === 'messages posted to the platform' && l.thread_id === 'desk:T-hup', 10_000);
    await until(async () => (await fetch(`${url}/readyz?strict=1`)).status === 200, 5_000, 'strict readiness after the new token');
    const printed = gw.lines.map((l) => JSON.stringify(l)).join('\n');
    expect(printed).not.toContain(fresh);
    expect(printed).not.toContain(sandbox.token);

    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });

  // Guards against: a SIGHUP that came while the gateway started (its platform slow to answer) ending the process.
  it('a SIGHUP during the start keeps the process: the settings are reloaded once it has started', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    proxy.hold = () => true; // the channel's registration waits: the start cannot end
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    const settings = (concurrency: number) => ({
      platform: { url: proxy.url, organization_id: sandbox.organizationId, token: sandbox.token },
      store: { path: 'gateway.db' },
      jobs: { concurrency },
      log: { level: 'info' },
      connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE, room_id: sandbox.roomId }],
    });
    writeFileSync(file, stringify(settings(4)));
    const gw = startCli(['serve', '--config', file, '--port', '0'], { cwd: dir });
    await until(() => proxy.held > 0, 10_000, 'the registration waiting');
    writeFileSync(file, stringify(settings(2)));
    gw.child.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    expect(gw.child.exitCode).toBeNull();
    expect(gw.child.signalCode).toBeNull();
    expect(gw.lines.some((l) => l.event === 'gateway_ready' || l.event === 'settings_reloaded')).toBe(false);

    proxy.hold = undefined;
    proxy.release();
    await gw.waitForLine((l) => l.event === 'gateway_ready');
    expect(await event(gw, 'settings_reloaded')).toMatchObject({ applied: [], restart_needed: ['jobs.concurrency'], msg: 'SIGHUP: nothing applied; jobs.concurrency needs a restart' });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });
});
