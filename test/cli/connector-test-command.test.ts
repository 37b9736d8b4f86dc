/**
 * `threadgate connector test`: the contract suite from the command line, as
 * a real process. A module that logs its secret and answers an empty request
 * with 500 fails those checks, with the reasons, exit 1, and the secret is
 * not printed; the docs' example and the bundled webhook connector (with
 * secrets from a settings file's ${VAR}s) pass, exit 0.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliAsync } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { newSecret } from '../connectors/webhook/fixtures.ts';

const ROOT = join(import.meta.dirname, '../..');
const LEAKY = join(ROOT, 'test/fixtures/connectors/leaky.ts');
const ECHO = join(ROOT, 'docs/examples/echo-connector.ts');

function settings(text: string): string {
  const file = join(tempDir(), 'threadgate.yaml');
  writeFileSync(file, text);
  return file;
}

describe('threadgate connector test', () => {
  it('fails a module that logs its secret and answers an empty request with 500: each reason, exit 1, the secret not shown', async () => {
    const token = `tok-${Date.now()}-abcdef`;
    const file = settings('connectors:\n  - name: leaky\n    type: leaky\n    api_token: ${LEAKY_TOKEN}\n');
    const run = await runCliAsync(['connector', 'test', LEAKY, '--config', file], { env: { LEAKY_TOKEN: token } });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('✗ each route answers an empty, a malformed and an unsigned request with a 4xx, never a 5xx, and submits nothing');
    expect(run.stdout).toContain('POST /events answered an empty request with 500');
    expect(run.stdout).toContain('✗ no configured secret appears in any log line');
    expect(run.stdout).toContain('a log line holds the value of api_token');
    expect(run.stdout).toContain('✓ its settings schema takes the settings given');
    expect(run.stdout).toMatch(/\n2 of 6 checks failed\n/);
    expect(run.stdout + run.stderr).not.toContain(token);

    const json = await runCliAsync(['connector', 'test', LEAKY, '--config', file, '--json'], { env: { LEAKY_TOKEN: token } });
    expect(json.status).toBe(1);
    const results = JSON.parse(json.stdout) as { name: string; ok: boolean; reason?: string }[];
    expect(results.filter((r) => !r.ok).map((r) => r.reason)).toEqual([
      expect.stringContaining('POST /events answered an empty request with 500'),
      'a log line holds the value of api_token',
    ]);
  });

  it("passes the docs' example, and the bundled webhook connector with its secrets from the environment", async () => {
    const echo = await runCliAsync(['connector', 'test', ECHO]);
    expect(echo.status).toBe(0);
    expect(echo.stdout).toMatch(/\n6 checks passed\n/);
    const file = settings('connectors:\n  - name: helpdesk\n    type: webhook\n    inbound_secret: ${IN}\n    outbound_url: http://127.0.0.1:9/hooks\n    outbound_secret: ${OUT}\n');
    const webhook = await runCliAsync(['connector', 'test', 'webhook', '--config', file], { env: { IN: newSecret(), OUT: newSecret() } });
    expect(webhook.stdout).toMatch(/\n6 checks passed\n/);
    expect(webhook.status).toBe(0);
  });

  it('names what is wrong with the command: no module, an unset variable, several entries', async () => {
    expect(await runCliAsync(['connector', 'test', 'no/such/module.ts'])).toMatchObject({ status: 2, stderr: expect.stringContaining('no module at') });
    const file = settings('connectors:\n  - { name: a, type: leaky, api_token: "${UNSET_TOKEN_VAR}" }\n  - { name: b, type: leaky, api_token: x }\n');
    expect(await runCliAsync(['connector', 'test', LEAKY, '--config', file])).toMatchObject({ status: 2, stderr: expect.stringContaining('has 2 entries of type "leaky": pick one with --connector NAME') });
    expect(await runCliAsync(['connector', 'test', LEAKY, '--config', file, '--connector', 'a'])).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('connectors[0].api_token: environment variable UNSET_TOKEN_VAR is not set'),
    });
  });
});
