/**
 * `config check` lists every problem of a settings file in one run — core
 * sections, the rules across them, and each connector entry's own keys —
 * and `serve` refuses the same file with the same list, before it opens a
 * store or a port.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

const ROOM = '0b8e4f5c-3c1d-4d7e-8f2a-9a1b2c3d4e5f';

const SETTINGS = [
  'platform:',
  '  url: https://api.platform.example',
  '  organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10',
  '  token: ${PLATFORM_TOKEN}',
  'server:',
  '  public_url: https://threadgate.example.com',
  '  port: ${PORT}',
  'stroe:',
  '  path: ./tg.db',
  'connectors:',
  `  - { name: desk, type: webhok, room_id: ${ROOM} }`,
  `  - { name: hooks, type: webhook, room_id: ${ROOM}, inbound_secrt: x }`,
].join('\n');

const PROBLEMS = [
  'server.port: environment variable PORT is not set',
  'stroe: unknown key — did you mean `store`?',
  'connectors[0].type: unknown connector type "webhok" — did you mean `webhook`? (bundled: email, jira-service-management, redmine, request-tracker, slack, telegram, webhook, whatsapp, zammad, zendesk; or give module: PATH)',
  'connectors[1].inbound_secrt: unknown key — did you mean `inbound_secret`?',
  'connectors[1].inbound_secret: required (or set allow_unsigned: true for a local demo)',
];

describe('every problem at once', () => {
  it('config check lists each problem once, connectors included, and exits 1', () => {
    const file = join(tempDir(), 'threadgate.yaml');
    writeFileSync(file, SETTINGS);
    const r = runCli(['config', 'check', '--config', file], { env: { PLATFORM_TOKEN: 'secret-token-value' } });
    expect(r.stderr).toBe(`${file}: ${PROBLEMS.length} problem(s)\n${PROBLEMS.map((p) => `  ${p}\n`).join('')}`);
    expect(r.stderr).not.toContain('secret-token-value');
    expect(r.status).toBe(1);
  });

  it('serve refuses the same file with the same problems, creating no store', () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, SETTINGS.replace('stroe:\n  path: ./tg.db', 'store:\n  path: ./tg.db\nstroe: {}'));
    const r = runCli(['serve', '--port', '0', '--config', file], { env: { PLATFORM_TOKEN: 't' } });
    expect(r.stderr).toBe(`${file}: ${PROBLEMS.length} problem(s)\n${PROBLEMS.map((p) => `  ${p}\n`).join('')}`);
    expect(r.status).toBe(1);
    expect(existsSync(join(dir, 'tg.db'))).toBe(false);
  });

  it('config check says ok once every problem is fixed', () => {
    const file = join(tempDir(), 'threadgate.yaml');
    const fixed = SETTINGS.replace('stroe:', 'store:').replace('webhok', 'webhook').replace('inbound_secrt: x', 'allow_unsigned: true');
    writeFileSync(file, fixed.replace(`type: webhook, room_id: ${ROOM} }`, `type: webhook, room_id: ${ROOM}, allow_unsigned: true }`));
    const r = runCli(['config', 'check', '--config', file], { env: { PLATFORM_TOKEN: 't', PORT: '8099' } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('ok — platform https://api.platform.example, 2 connector(s)');
    expect(r.status).toBe(0);
  });
});
