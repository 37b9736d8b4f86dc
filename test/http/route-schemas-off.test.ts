/**
 * Fastify's route schemas are off in both of threadgate's Fastify apps
 * (src/base/route-schemas-off.ts): a gateway that starts with its embedded
 * sandbox loads neither Ajv nor fast-json-stringify, and a route that
 * declares a schema in either app fails when the app gets ready, naming the
 * route, instead of being compiled by a compiler nobody chose.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Settings } from '../../src/config/schema.ts';
import { buildApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log/logger.ts';
import { buildSandboxApp } from '../../src/sandbox/app.ts';
import { openStore } from '../../src/store/database.ts';
import { startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

const RECORDER = fileURLToPath(new URL('../fixtures/record-loaded-modules.cjs', import.meta.url));

function gatewayApp(): FastifyInstance {
  const store = openStore({ path: join(tempDir(), 'app.db') });
  onTestFinished(() => store.close());
  const app = buildApp({ settings: Settings.parse({}), store, logger: createLogger('silent') });
  onTestFinished(() => app.close());
  return app;
}

function sandboxApp(): FastifyInstance {
  const { app } = buildSandboxApp();
  onTestFinished(() => app.close());
  return app;
}

describe('route schemas off', () => {
  it('a gateway started with its embedded sandbox loads neither Ajv nor fast-json-stringify', async () => {
    const file = join(tempDir(), 'loaded.json');
    const gateway = startCli(['serve', '--port', '0'], {
      cwd: tempDir(),
      env: { TG_LOADED_MODULES_FILE: file },
      nodeArgs: ['--require', RECORDER],
    });
    await gateway.waitForLine((line) => line.msg === 'threadgate is ready', 20_000);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    const loaded = JSON.parse(readFileSync(file, 'utf8')) as string[];
    // The recorder saw the gateway's libraries: Fastify itself is there.
    expect(loaded.some((path) => path.includes('/node_modules/fastify/fastify.js'))).toBe(true);
    // Fastify's own error serializer needs two small files of fast-json-stringify's runtime; its compiler stays out.
    const schemaCompilers = loaded.filter(
      (path) => /\/node_modules\/(ajv|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler)\//.test(path) || path.endsWith('/node_modules/fast-json-stringify/index.js'),
    );
    expect(schemaCompilers).toEqual([]);
  });

  for (const [name, build] of [
    ['the gateway’s app', gatewayApp],
    ['the sandbox’s app', sandboxApp],
  ] as const) {
    it(`${name} refuses a route that declares a body schema, naming the route`, async () => {
      const app = build();
      app.post('/with-a-schema', { schema: { body: { type: 'object' } } }, async () => ({ ok: true }));
      await expect(app.ready()).rejects.toThrow(/POST \/with-a-schema declares a validation schema \(body\): threadgate's routes check their input with zod/);
    });

    it(`${name} refuses a route that declares a response schema`, async () => {
      const app = build();
      app.get('/with-a-response-schema', { schema: { response: { 200: { type: 'object' } } } }, async () => ({ ok: true }));
      await expect(app.ready()).rejects.toThrow(/GET \/with-a-response-schema declares a response schema \(200\)/);
    });
  }
});
