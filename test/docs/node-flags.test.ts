/**
 * The gateway's Node.js flags (src/cli/node-flags.ts) are given wherever the
 * gateway is started as shipped: `npm start` (README's run command) and the
 * image's ENTRYPOINT, each before the entry module, where Node takes them as
 * its own flags and not as the command's arguments.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';

const root = join(import.meta.dirname, '../..');

describe("the gateway's Node.js flags", () => {
  it('are in `npm start`, before the entry module', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const words = pkg.scripts.start!.split(/\s+/);
    expect(words[0]).toBe('node');
    expect(words.slice(1, words.indexOf('src/cli/main.ts'))).toEqual([...GATEWAY_NODE_FLAGS]);
  });

  it("are in the image's ENTRYPOINT, before the entry module", () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const line = dockerfile.split('\n').find((l) => l.startsWith('ENTRYPOINT '));
    const entrypoint = JSON.parse(line!.slice('ENTRYPOINT '.length)) as string[];
    expect(entrypoint[0]).toBe('node');
    expect(entrypoint.slice(1, entrypoint.indexOf('/app/src/cli/main.ts'))).toEqual([...GATEWAY_NODE_FLAGS]);
  });
});
