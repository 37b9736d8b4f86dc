/**
 * `threadgate serve` with human log output, as a real process: `--pretty`, or
 * `log.format: pretty` in the settings file, prints one readable line per
 * event (no JSON), and a credential in a request's query is still written as
 * `[redacted]`; without either, the lines stay JSON.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const SECRET = 'query-secret-5b1d';
const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (FATAL|ERROR|WARN |INFO |DEBUG|TRACE) (\[[^\]]+\]|-) /;

/** Starts serve and collects its raw stdout lines. */
function serve(args: string[], cwd: string) {
  const cli = startCli(['serve', '--port', '0', ...args], { cwd });
  const raw: string[] = [];
  let rest = '';
  cli.child.stdout.on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    raw.push(...parts);
  });
  return { cli, raw };
}

/**
 * The lines of the log, without the demo's plain text (with no settings the gateway runs the demo and prints its
 * steps for people to paste, after the `demo` event: test/cli/demo-steps.test.ts) and blank lines.
 */
function logLines(raw: string[]): string[] {
  const start = raw.indexOf('Try the round trip (the embedded sandbox plays the platform):');
  const end = raw.findIndex((l) => l.startsWith('   Then the reply comes back'));
  const rest = start >= 0 && end > start ? [...raw.slice(0, start), ...raw.slice(end + 1)] : raw;
  return rest.filter((l) => l !== '');
}

async function readyUrl(raw: string[]): Promise<string> {
  await until(async () => raw.some((l) => l.includes('event=gateway_ready')), 15_000, 'the gateway_ready line');
  const ready = raw.find((l) => l.includes('event=gateway_ready'))!;
  return /\burl=(http:\/\/[^\s"]+)/.exec(ready)![1]!;
}

describe('threadgate serve with pretty logs', () => {
  it('--pretty: every line is time, level, [part], message, key=value; a query credential is redacted', async () => {
    const { cli, raw } = serve(['--pretty'], tempDir());
    const url = await readyUrl(raw);
    expect((await fetch(`${url}/healthz?token=${SECRET}`)).status).toBe(200);
    await until(async () => raw.some((l) => l.includes('/healthz?token=')), 5_000, 'the request line');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);

    expect(cli.lines).toEqual([]); // not one JSON line
    for (const line of logLines(raw)) expect(line).toMatch(LINE);
    expect(raw.find((l) => l.includes('event=gateway_ready'))).toMatch(/ INFO  /);
    const request = raw.find((l) => l.includes('/healthz?token='))!;
    expect(request).toMatch(/ \[http\] /);
    expect(request).toContain('/healthz?token=[redacted]');
    expect(raw.join('\n')).not.toContain(SECRET);
  });

  it('log.format: pretty in the settings file does the same; without it the lines are JSON', async () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, 'log:\n  level: info\n  format: pretty\n');
    const pretty = serve(['--config', file], dir);
    await readyUrl(pretty.raw);
    pretty.cli.child.kill('SIGTERM');
    expect(await pretty.cli.exited).toBe(0);
    expect(pretty.cli.lines).toEqual([]);

    const plainDir = tempDir();
    const json = serve([], plainDir);
    await json.cli.waitForLine((l) => l.event === 'gateway_ready');
    json.cli.child.kill('SIGTERM');
    expect(await json.cli.exited).toBe(0);
    expect(logLines(json.raw).every((l) => JSON.parse(l) !== null)).toBe(true);
  });
});
