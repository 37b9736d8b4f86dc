/**
 * docs/deployment.md's compose file is valid YAML naming the image, a
 * PostgreSQL database the replicas' store URL points at, two replicas of the
 * gateway and a load balancer in front; its settings example is valid
 * threadgate settings with a public URL.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSettings } from '../../src/config/load.ts';
import { loadConnectors } from '../../src/connector/registry.ts';
import { tempDir } from '../support/temp-dir.ts';

const doc = readFileSync(join(import.meta.dirname, '../../docs/deployment.md'), 'utf8');
const yamlBlocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/deployment.md', () => {
  it('has a compose file with PostgreSQL, two gateway replicas on it and a load balancer', () => {
    const compose = parse(yamlBlocks[0]!) as { services: Record<string, Record<string, any>>; configs?: Record<string, { content: string }> };
    const { db, threadgate, lb } = compose.services;
    expect(db!.image).toMatch(/^postgres:/);
    expect(threadgate!.image).toMatch(/^threadgate(:|$)/);
    expect(threadgate!.deploy.replicas).toBe(2);
    const url = new URL(threadgate!.environment.THREADGATE_STORE_URL.replace('${PG_PASSWORD}', 'pw'));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('db');
    expect(url.pathname).toBe(`/${db!.environment.POSTGRES_DB}`);
    expect(url.username).toBe(db!.environment.POSTGRES_USER);
    expect(threadgate!.depends_on.db.condition).toBe('service_healthy');
    expect(lb!.image).toMatch(/^nginx:/);
    expect(compose.configs!.nginx!.content).toContain('server threadgate:8080');
  });

  it('has a settings example threadgate accepts, connector keys included, with the environment it names', async () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(file, yamlBlocks[1]!);
    const env = { PLATFORM_TOKEN: 't', THREADGATE_ADMIN_TOKEN: 'a'.repeat(20), IMAP_PASSWORD: 'p', THREADGATE_STORE_URL: 'postgres://threadgate:pw@db:5432/threadgate' };
    const { settings } = loadSettings({ path: file, env });
    expect(settings.store.url).toBe(env.THREADGATE_STORE_URL);
    expect(settings.server.public_url).toBe('https://threadgate.example.com');
    expect(settings.connectors.map((c) => c.type)).toEqual(['email']);
    expect((await loadConnectors(settings.connectors, dir)).problems).toEqual([]);
  });
});
