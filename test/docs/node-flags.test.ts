/**
 * The gateway's Node.js flags (src/cli/node-flags.ts) are given by `npm start`
 * (README's run command), before the entry module, where Node takes them as
 * its own flags and not as the command's arguments; its environment
 * (GATEWAY_ENV) as assignments before `node`. The benchmarks that run the
 * gateway in their own process start that process the same way, so what they
 * measure is the gateway as it ships. The image's ENTRYPOINT and ENV are
 * checked, and run as written, by test/cli/container-defaults.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';

const scripts = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** A script's assignments before `node`, and `node`'s words up to `entry`. */
function parts(name: string, entry: string): { assignments: Record<string, string>; flags: string[] } {
  // `exec`: the shell npm starts gives its place to node, so npm's signals reach it (test/cli/npm-entry-points.test.ts).
  const words = (scripts[name] ?? '').split(/\s+/).filter((word) => word !== 'exec');
  const node = words.indexOf('node');
  expect(node, `npm run ${name} runs node`).toBeGreaterThanOrEqual(0);
  const at = words.indexOf(entry);
  expect(at, `npm run ${name} runs ${entry}`).toBeGreaterThan(node);
  return {
    assignments: Object.fromEntries(words.slice(0, node).map((word) => word.split('=', 2) as [string, string])),
    flags: words.slice(node + 1, at),
  };
}

describe("the gateway's Node.js flags", () => {
  it('are in `npm start`, before the entry module', () => {
    expect(parts('start', 'src/cli/threadgate.js').flags).toEqual([...GATEWAY_NODE_FLAGS]);
  });

  it('come with its environment, set before `node` in `npm start`', () => {
    expect(parts('start', 'src/cli/threadgate.js').assignments).toEqual(GATEWAY_ENV);
  });

  // The e-mail backlog's benchmark starts the gateway as a process of its own, with both (bench/email/email-backlog.bench.ts).
  it.each([
    ['bench', 'bench/run-all.ts'],
    ['bench:receiver', 'bench/receiver/receiver.bench.ts'],
    ['bench:drain', 'bench/receiver/drain.bench.ts'],
    ['bench:connector-intake', 'bench/receiver/connector-intake.bench.ts'],
  ])('start `npm run %s`, whose process runs the gateway, with its environment', (name, entry) => {
    const { assignments, flags } = parts(name, entry);
    expect(flags).toEqual([...GATEWAY_NODE_FLAGS]);
    expect(assignments).toEqual(GATEWAY_ENV);
  });
});
