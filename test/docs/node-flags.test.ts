/**
 * The gateway's Node.js flags (src/cli/node-flags.ts) are given by `npm start`
 * (README's run command), before the entry module, where Node takes them as
 * its own flags and not as the command's arguments. The image's ENTRYPOINT is
 * checked, and run as written, by test/cli/container-defaults.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';

describe("the gateway's Node.js flags", () => {
  it('are in `npm start`, before the entry module', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = pkg.scripts.start!.split(/\s+/);
    expect(words[0]).toBe('node');
    expect(words.slice(1, words.indexOf('src/cli/threadgate.js'))).toEqual([...GATEWAY_NODE_FLAGS]);
  });
});
