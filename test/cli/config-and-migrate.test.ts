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
    expect(r.stderr).toContain(`${file}: 2 problem(s)`);
    expect(r.stderr).toContain('server.port: Invalid input: expected number, received string');
    expect(r.stderr).toContain('connectors[1].name: expected lower-case letters, digits and dashes');
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
