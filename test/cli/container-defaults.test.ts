/**
 * What the container relies on: THREADGATE_STORE_PATH keeps the store on the
 * data volume when the settings file (mounted elsewhere) names none, and
 * `threadgate health` follows the port the settings give.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_ENV, GATEWAY_NODE_FLAGS } from '../../src/cli/node-flags.ts';
import { MAIN, runCliAsync, startCli } from '../support/cli.ts';
import { closedPort, freePort } from '../support/ports.ts';
import { tempDir } from '../support/temp-dir.ts';

/** A settings file of these lines in a folder of its own, as the container's /etc/threadgate.yaml. */
function configElsewhere(lines: string[] = []): { etc: string; file: string } {
  const etc = tempDir('threadgate-etc-');
  const file = join(etc, 'threadgate.yaml');
  writeFileSync(file, [...lines, ''].join('\n'));
  return { etc, file };
}

describe('THREADGATE_STORE_PATH', () => {
  // Guards against: store.path resolved against the config file's folder, so the container's store landed in /etc/data/ instead of the /data volume.
  it('puts the store at its path when the settings file in another folder names none', async () => {
    const { etc, file } = configElsewhere();
    const data = tempDir('threadgate-data-');
    const store = join(data, 'threadgate.db');
    const gw = startCli(['serve', '--port', '0'], { cwd: tempDir(), env: { THREADGATE_CONFIG: file, THREADGATE_STORE_PATH: store } });
    await gw.waitForLine((l) => l.event === 'gateway_ready');
    expect(existsSync(store)).toBe(true);
    expect(existsSync(join(etc, 'data'))).toBe(false);
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);

    const migrated = await runCliAsync(['migrate'], { env: { THREADGATE_CONFIG: file, THREADGATE_STORE_PATH: store } });
    expect(migrated.stdout).toMatch(new RegExp(`^${store}: 0 migration\\(s\\) applied`));
  });

  it('gives way to a store.path the file sets, and reads a relative path from the working folder', async () => {
    const cwd = tempDir();
    const named = configElsewhere(['store:', '  path: ./mine.db']);
    const fileWins = await runCliAsync(['config', 'check', '--config', named.file], { env: { THREADGATE_STORE_PATH: join(cwd, 'env.db') } });
    expect(fileWins.stdout).toContain(`store ${join(named.etc, 'mine.db')}\n`);

    const relative = await runCliAsync(['config', 'check', '--config', configElsewhere().file], { cwd, env: { THREADGATE_STORE_PATH: 'state/tg.db' } });
    expect(relative.stdout).toContain(`store ${join(cwd, 'state', 'tg.db')}\n`);
    expect(relative.status).toBe(0);
  });
});

describe('threadgate health', () => {
  // Guards against: the HEALTHCHECK asked port 8080 whatever server.port said, so a gateway on another port was reported unhealthy.
  it('exits 0 against a running gateway on the port its settings give', async () => {
    const port = await freePort();
    const { file } = configElsewhere(['server:', `  port: ${port}`]);
    const gw = startCli(['serve'], { cwd: tempDir(), env: { THREADGATE_CONFIG: file } });
    await gw.waitForLine((l) => l.event === 'gateway_ready');

    const r = await runCliAsync(['health'], { env: { THREADGATE_CONFIG: file } });
    expect(r.stdout).toBe(`http://127.0.0.1:${port}/healthz: ok\n`);
    expect(r.status).toBe(0);
  });

  it('exits 1 naming the address when nothing listens there', async () => {
    const port = await closedPort();
    const { file } = configElsewhere(['server:', '  host: 0.0.0.0', `  port: ${port}`]);
    const r = await runCliAsync(['health', '--config', file]);
    expect(r.stderr).toBe(`threadgate health: TG_HEALTH_FAILED: http://127.0.0.1:${port}/healthz: connection refused (is the gateway running on this port?)\n`);
    expect(r.status).toBe(1);
  });
});

describe('the Dockerfile', () => {
  const dockerfile = readFileSync(join(import.meta.dirname, '../../Dockerfile'), 'utf8');
  const env = Object.fromEntries([...dockerfile.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const exec = (instruction: RegExp) => JSON.parse(dockerfile.match(instruction)![1]!) as string[];

  // Guards against: the image's store landing beside the mounted settings file, and a HEALTHCHECK pinned to port 8080.
  it('run as written (its ENV, ENTRYPOINT, CMD and HEALTHCHECK) keeps the store on the volume and is healthy on the configured port', async () => {
    const [volume] = exec(/^VOLUME (\[.*\])$/m);
    const data = tempDir('threadgate-volume-');
    /** The image's paths on this machine: /app is the repository, the volume a temp folder. */
    const cache = tempDir('threadgate-compile-cache-');
    const local = (arg: string) => arg.replace('/app/src/cli/threadgate.js', MAIN).replace(volume!, data).replace('/app/.compile-cache', cache);
    expect(env.THREADGATE_STORE_PATH?.startsWith(`${volume}/`)).toBe(true);

    const port = await freePort();
    const { etc, file } = configElsewhere(['server:', `  port: ${port}`]);
    const runEnv = { ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, local(v)])), THREADGATE_CONFIG: file };
    const [node, ...rest] = [...exec(/^ENTRYPOINT (\[.*\])$/m), ...exec(/^CMD (\[.*\])$/m)].map(local);
    const nodeArgs = rest.slice(0, rest.indexOf(MAIN));
    const args = rest.slice(rest.indexOf(MAIN) + 1);
    expect(node).toBe('node');
    expect(nodeArgs).toEqual([...GATEWAY_NODE_FLAGS]);
    expect(env).toMatchObject(GATEWAY_ENV);
    const gw = startCli(args, { cwd: data, env: runEnv, nodeArgs });
    await gw.waitForLine((l) => l.event === 'gateway_ready');
    expect(existsSync(local(env.THREADGATE_STORE_PATH!))).toBe(true);
    expect(existsSync(join(etc, 'data'))).toBe(false);

    const [, ...check] = exec(/^\s+CMD (\[.*\])$/m).map(local);
    const health = spawnSync(process.execPath, check, { env: { ...process.env, ...runEnv }, encoding: 'utf8', timeout: 20_000 });
    expect(health.stdout).toBe(`http://127.0.0.1:${port}/healthz: ok\n`);
    expect(health.status).toBe(0);
  });

  it('fills the compile cache at build time with the modules serve and the connectors load', () => {
    const run = dockerfile.match(/^RUN (node --input-type=module -e "(.*)") \\$/m);
    expect(run).not.toBeNull();
    expect(env.NODE_COMPILE_CACHE).toBe('/app/.compile-cache');
    const cache = tempDir('threadgate-compile-cache-');
    const repository = join(import.meta.dirname, '../..');
    const script = run![2]!.replaceAll('/app/', `${repository}/`);
    const built = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, NODE_COMPILE_CACHE: cache },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const files = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(200);
  });
});
