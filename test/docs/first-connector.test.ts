/**
 * docs/connectors.md, "Your first connector", run as written: its two shell
 * blocks, one after the other in a temp folder, with `threadgate` on PATH as
 * an author would have it. The scaffold installs, tests and type-checks; the
 * round trip posts a signed message, answers as an agent in the sandbox, and
 * the delivery log shows the reply failed for the example's dead reply_url.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { fencedBlocks, ROOT } from './doc-snippets.ts';

const run = promisify(execFile);

/** The shell block right after `<!-- snippet: run first-connector NAME -->`. */
function block(name: string): string {
  const found = fencedBlocks('docs/connectors.md').find((b) => b.lang === 'sh' && b.before === `<!-- snippet: run first-connector ${name} -->`);
  if (found === undefined) throw new Error(`docs/connectors.md has no block marked "run first-connector ${name}"`);
  return found.text;
}

describe('docs/connectors.md, "Your first connector"', () => {
  it('runs as written: scaffold, install, test, type-check, contract; then the round trip to the delivery log', { timeout: 240_000 }, async () => {
    const home = tempDir('first-connector-');
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'threadgate'), `#!/bin/sh\nexec '${process.execPath}' '${join(ROOT, 'src/cli/threadgate.js')}' "$@"\n`);
    chmodSync(join(bin, 'threadgate'), 0o755);
    const env = { ...process.env, PATH: `${bin}:${join(process.execPath, '..')}:${process.env.PATH}`, NO_COLOR: '1', FORCE_COLOR: '0', THREADGATE_CONFIG: '', npm_config_audit: 'false', npm_config_fund: 'false' };
    // The round trip's waits loop until the step is done: a step that never happens ends the run at the timeout, serve stopped.
    const script = `set -e\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${block('setup')}\n${block('round-trip')}\n`;
    const { stdout } = await run('bash', ['-c', script], { cwd: home, env, timeout: 180_000, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
      throw new Error(`the guide's commands exited ${err.code}:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    expect(stdout).toContain('6 checks passed');
    expect(stdout).toMatch(/"accepted"|"thread_id":"chatline:c-1"/);
    expect(stdout).toMatch(/\n\d+\s+\S+\s+chatline\s+message_created\s+failed/);
  });
});
