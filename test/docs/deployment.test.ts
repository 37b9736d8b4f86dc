/**
 * docs/deployment.md walks through the shipped files of deploy/ instead of
 * repeating them: every folder it links exists and holds what it says, and
 * none of its YAML blocks is a compose file, a Kubernetes object or a
 * settings file of its own (those live, and are tested, in deploy/:
 * test/deploy/manifests.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SettingsSections } from '../../src/config/schema.ts';

const ROOT = join(import.meta.dirname, '../..');
const doc = readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8');
const yamlBlocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as Record<string, unknown>);

describe('docs/deployment.md', () => {
  it('links the deploy/ folders, each existing with the files it is said to hold', () => {
    const linked = [...doc.matchAll(/\]\(\.\.\/(deploy\/[a-z]+)\/\)/g)].map((m) => m[1]!);
    expect(linked).toEqual(['deploy/compose', 'deploy/kubernetes', 'deploy/prometheus', 'deploy/grafana']);
    for (const file of ['compose/compose.yaml', 'compose/threadgate.yaml', 'compose/.env.example', 'kubernetes/deployment.yaml', 'kubernetes/README.md',
      'prometheus/alerts.yml', 'prometheus/alerts.test.yml', 'grafana/threadgate.json']) {
      expect(existsSync(join(ROOT, 'deploy', file)), file).toBe(true);
    }
  });

  it('repeats no compose file, Kubernetes object or settings file of deploy/', () => {
    const own = yamlBlocks.filter((b) => 'services' in b || 'apiVersion' in b || Object.keys(b).some((k) => Object.hasOwn(SettingsSections.shape, k)));
    expect(own).toEqual([]);
  });
});
