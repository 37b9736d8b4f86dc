/**
 * The commands that only read or requeue from the store run where the
 * service's environment is missing (a bastion, a debug shell): a settings
 * file whose connector secrets, platform token and admin token come from
 * `${VAR}`s that are unset here. `serve` and `config check` still refuse
 * them, naming each; a command that needs an unset value names it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { closedPort } from '../support/ports.ts';
import { tempDir } from '../support/temp-dir.ts';

const SETTINGS = `
platform:
  url: \${PLATFORM_URL}
  organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10
  token: \${PLATFORM_TOKEN}
server:
  port: \${PORT}
  public_url: https://threadgate.example.com
  admin_token: \${THREADGATE_ADMIN_TOKEN}
store:
  path: gateway.db
connectors:
  - name: helpdesk
    type: webhook
    room_id: 0b8e4f5c-3c1d-4d7e-8f2a-9a1b2c3d4e5f
    inbound_secret: \${HELPDESK_IN_SECRET}
    outbound_url: https://helpdesk.example.com/threadgate
    outbound_secret: \${HELPDESK_OUT_SECRET}
`;

/** None of the file's variables is set here. */
const UNSET = { PLATFORM_URL: undefined, PLATFORM_TOKEN: undefined, PORT: undefined, THREADGATE_ADMIN_TOKEN: undefined, HELPDESK_IN_SECRET: undefined, HELPDESK_OUT_SECRET: undefined, THREADGATE_STORE_PATH: undefined, THREADGATE_STORE_URL: undefined };

function settingsFile(): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(file, SETTINGS);
  return { dir, file };
}

describe('settings whose connector secrets are unset here', () => {
  it('migrate, deliveries, inbound, jobs and replay --dry-run read the store', () => {
    const { dir, file } = settingsFile();
    const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: dir, env: UNSET });
    const migrated = cli('migrate');
    expect(migrated.stderr).toBe('');
    expect(migrated.status).toBe(0);
    expect(migrated.stdout).toMatch(/gateway\.db: \d+ migration\(s\) applied/);

    for (const args of [
      ['deliveries', 'list', '--json'],
      ['deliveries', 'list', '--connector', 'helpdesk', '--json'],
      ['inbound', 'list', '--json'],
      ['jobs', 'list', '--json'],
    ]) {
      const listed = cli(...args);
      expect({ args, status: listed.status, stderr: listed.stderr }).toEqual({ args, status: 0, stderr: '' });
      expect(JSON.parse(listed.stdout)).toEqual([]);
    }
    const dry = cli('replay', '--status', 'dead', '--dry-run');
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    // A connector the settings do not name is still refused: the names were read.
    const unknown = cli('deliveries', 'list', '--connector', 'nosuch');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('nosuch');
  });

  it('serve and config check still refuse them, naming every unset variable', () => {
    const { dir, file } = settingsFile();
    for (const command of [['serve', '--port', '0'], ['config', 'check']]) {
      const refused = runCli([...command, '--config', file], { cwd: dir, env: UNSET });
      expect(refused.status).toBe(1);
      const text = refused.stdout + refused.stderr;
      expect(text).toContain('connectors[0].inbound_secret: environment variable HELPDESK_IN_SECRET is not set');
      expect(text).toContain('platform.token: environment variable PLATFORM_TOKEN is not set');
    }
  });

  it('health needs where the gateway listens: an unset server.port is named; with --port the rest may stay unset', async () => {
    const { dir, file } = settingsFile();
    const unsetPort = runCli(['health', '--config', file], { cwd: dir, env: UNSET });
    expect(unsetPort.status).toBe(1);
    expect(unsetPort.stderr).toContain('server.port: environment variable PORT is not set');
    expect(unsetPort.stderr).not.toContain('HELPDESK_IN_SECRET');

    const port = await closedPort();
    const asked = runCli(['health', '--config', file, '--port', String(port)], { cwd: dir, env: UNSET });
    expect(asked.status).toBe(1);
    expect(asked.stderr).toContain(`http://127.0.0.1:${port}/healthz`);
    expect(asked.stderr).not.toContain('is not set');
    const fromEnv = runCli(['health', '--config', file], { cwd: dir, env: { ...UNSET, PORT: String(port) } });
    expect(fromEnv.stderr).toContain(`http://127.0.0.1:${port}/healthz`);
  });
});
