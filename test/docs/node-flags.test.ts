/**
 * The gateway's Node.js flags (src/cli/node-flags.ts) are given by `npm start`
 * (README's run command), before the entry module, where Node takes them as
 * its own flags and not as the command's arguments; its environment
 * (GATEWAY_ENV) as assignments before `node`. The image's ENTRYPOINT and ENV
 * are checked, and run as written, by test/cli/container-defaults.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';

describe("the gateway's Node.js flags", () => {
  const start = () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = pkg.scripts.start!.split(/\s+/);
    const node = words.indexOf('node');
    return { assignments: words.slice(0, node), command: words.slice(node) };
  };

  it('are in `npm start`, before the entry module', () => {
    const { command } = start();
    expect(command[0]).toBe('node');
    expect(command.slice(1, command.indexOf('src/cli/threadgate.js'))).toEqual([...GATEWAY_NODE_FLAGS]);
  });

  it('come with its environment, set before `node` in `npm start`', () => {
    const { assignments } = start();
    expect(Object.fromEntries(assignments.map((word) => word.split('=', 2) as [string, string]))).toEqual(GATEWAY_ENV);
  });
});
