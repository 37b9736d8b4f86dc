/**
 * `serve --watch`, as a real process: an edit of a connector's module — or of
 * a helper file beside it — is live within seconds without a restart; a
 * syntax error keeps the running code and says why; a change of its settings
 * entry makes it anew; what it stored before (its state) stays.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';
import { until } from '../support/wait.ts';

const API = join(import.meta.dirname, '../../src/connector/api.ts');

/** A connector whose GET /version answers the module's VERSION, the helper's WORD and its own `greeting` setting. */
function moduleText(version: string): string {
  return `import { z } from 'zod';
import { defineConnector } from '${API}';
import { WORD } from './helper.ts';
const VERSION = '${version}';
export default defineConnector({
  type: 'live',
  configSchema: z.strictObject({ greeting: z.string() }),
  create(config, ctx) {
    ctx.routes.add('GET', '/version', async () => ({ status: 200, body: { version: VERSION, word: WORD, greeting: config.greeting, kept: (await ctx.state.get('kept')) ?? null } }));
    ctx.routes.add('POST', '/keep', async () => { await ctx.state.set('kept', VERSION); return { status: 204 }; });
    return { start() {}, stop() {}, async deliver() {} };
  },
});
`;
}

const settingsText = (greeting: string) => `connectors:\n  - name: live\n    type: live\n    module: ./live/live.ts\n    greeting: ${greeting}\n`;

describe('threadgate serve --watch', () => {
  it('reloads a connector when its module, a helper beside it or its entry changes; a broken edit keeps the running code', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const folder = join(dir, 'live');
    mkdirSync(folder);
    writeFileSync(join(folder, 'live.ts'), moduleText('v1'));
    writeFileSync(join(folder, 'helper.ts'), "export const WORD = 'one';\n");
    writeFileSync(join(dir, 'threadgate.yaml'), settingsText('hello'));
    const gw = startCli(['serve', '--port', '0', '--watch', '--config', join(dir, 'threadgate.yaml')], { cwd: dir });
    const url = String((await gw.waitForLine((l) => l.event === 'gateway_ready')).url);
    const version = async () => (await (await fetch(`${url}/connectors/live/version`)).json()) as Record<string, unknown>;
    expect(await version()).toEqual({ version: 'v1', word: 'one', greeting: 'hello', kept: null });
    expect((await fetch(`${url}/connectors/live/keep`, { method: 'POST' })).status).toBe(204);

    writeFileSync(join(folder, 'live.ts'), moduleText('v2'));
    await until(async () => (await version()).version === 'v2', 10_000, 'the edited module live');
    expect(await version()).toEqual({ version: 'v2', word: 'one', greeting: 'hello', kept: 'v1' });
    // Logged after the new module answers: its line may come a moment after the answer.
    expect(await gw.waitForLine((l) => l.event === 'connector_reloaded', 10_000)).toMatchObject({ connector: 'live', reason: 'live.ts changed' });

    writeFileSync(join(folder, 'helper.ts'), "export const WORD = 'two';\n");
    await until(async () => (await version()).word === 'two', 10_000, 'the edited helper live');

    writeFileSync(join(folder, 'live.ts'), `${moduleText('v3')}\nexport const broken = ;\n`);
    const refused = await gw.waitForLine((l) => l.event === 'connector_reload_refused', 10_000);
    expect(refused).toMatchObject({ connector: 'live', error: expect.stringContaining('cannot load') });
    expect(await version()).toMatchObject({ version: 'v2', word: 'two' });

    writeFileSync(join(folder, 'live.ts'), moduleText('v4'));
    await until(async () => (await version()).version === 'v4', 10_000, 'the mended module live');

    writeFileSync(join(dir, 'threadgate.yaml'), settingsText('bonjour'));
    await until(async () => (await version()).greeting === 'bonjour', 10_000, 'the changed entry live');
    // The changed key is the watch's to apply: the settings reload does not call it a restart.
    expect(await gw.waitForLine((l) => l.event === 'settings_reloaded')).toMatchObject({ applied: ['connectors.0.greeting'], restart_needed: [] });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
  });
});
