import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { RECORDER_MODULE } from '../support/gateway.ts';
import { tempDir } from '../support/temp-dir.ts';

describe('threadgate config check', () => {
  it('prints every problem with its path and exits 1', () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'server:\n  port: "eighty"\nconnectors:\n  - { name: ok, type: webhook }\n  - { name: Bad Name, type: webhook }\n',
    );
    const r = runCli(['config', 'check', '--config', file]);
    expect(r.status).toBe(1);
    // Each entry's own keys are checked by its connector although the core settings have problems.
    expect(r.stderr).toContain(`${file}: 4 problem(s)`);
    expect(r.stderr).toContain('server.port: Invalid input: expected number, received string');
    expect(r.stderr).toContain('connectors[1].name: expected lower-case letters, digits and dashes');
    expect(r.stderr).toContain('connectors[0].inbound_secret: required (or set allow_unsigned: true for a local demo)');
    expect(r.stderr).toContain('connectors[1].inbound_secret: required (or set allow_unsigned: true for a local demo)');
  });

  it("checks each connector's own keys with its schema, naming the path", () => {
    const dir = tempDir();
    const file = join(dir, 'connectors.yaml');
    writeFileSync(
      file,
      [
        'connectors:',
        `  - { name: desk, type: recorder, module: ${JSON.stringify(RECORDER_MODULE)}, fail_deliveries: many }`,
        '  - { name: other, type: carrier-pigeon }',
      ].join('\n'),
    );
    const r = runCli(['config', 'check', '--config', file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('connectors[0].fail_deliveries: Invalid input: expected number, received string');
    expect(r.stderr).toMatch(/connectors\[1\]\.type: unknown connector type "carrier-pigeon" \(bundled: .*webhook/);
  });

  it('accepts a valid file named by THREADGATE_CONFIG and exits 0', () => {
    const dir = tempDir();
    const file = join(dir, 'good.yaml');
    writeFileSync(file, 'connectors:\n  - { name: demo, type: webhook, allow_unsigned: true }\n');
    const r = runCli(['config', 'check'], { env: { THREADGATE_CONFIG: file } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('ok — platform embedded sandbox, 1 connector(s)');
  });

  // Guards against: `config check` said ok while a real platform would get reply_webhook_url http://127.0.0.1:8080/… it cannot reach.
  it('refuses a real platform without a public_url it can reach, naming the fix, exit 1', () => {
    const dir = tempDir();
    const file = join(dir, 'public.yaml');
    const settings = (server: string) =>
      [
        'platform: { url: "https://api.platform.example", organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10, token: t }',
        `server: { host: 0.0.0.0${server} }`,
        'connectors:',
        '  - { name: desk, type: webhook, room_id: 0b8e4f5c-3c1d-4d7e-8f2a-9a1b2c3d4e5f, allow_unsigned: true }',
      ].join('\n');
    writeFileSync(file, settings(''));
    const missing = runCli(['config', 'check', '--config', file]);
    expect(missing.stderr).toBe(
      `${file}: 1 problem(s)\n  server.public_url: required when platform.url is set — ` +
        'the address the platform reaches this gateway at, e.g. https://threadgate.example.com\n',
    );
    expect(missing.status).toBe(1);

    writeFileSync(file, settings(', public_url: "http://[::1]:8080"'));
    const loopback = runCli(['config', 'check', '--config', file]);
    expect(loopback.stderr).toContain('server.public_url: http://[::1]:8080 is on a loopback address, which the platform at https://api.platform.example cannot reach');
    expect(loopback.status).toBe(1);

    writeFileSync(file, settings(', public_url: "https://threadgate.example.com"'));
    const reachable = runCli(['config', 'check', '--config', file]);
    expect(reachable.stdout).toContain('ok — platform https://api.platform.example, 1 connector(s)');
    expect(reachable.status).toBe(0);
  });

  it('refuses unknown commands and options with usage, exit 2', () => {
    expect(runCli(['frobnicate']).status).toBe(2);
    const r = runCli(['config', 'check', '--bogus']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown option '--bogus'/);
  });
});

describe('threadgate migrate', () => {
  it('applies every migration to a new store, then none the second time', () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, 'store:\n  path: ./state/tg.db\n');
    const first = runCli(['migrate', '--config', file]);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`${join(dir, 'state', 'tg.db')}: [1-9]\\d* migration\\(s\\) applied`));
    const second = runCli(['migrate', '--config', file]);
    expect(second.stdout).toMatch(/: 0 migration\(s\) applied, (\d+) of \1 in place/);
  });
});
