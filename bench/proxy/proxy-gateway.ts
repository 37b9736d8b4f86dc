/**
 * A threadgate gateway for `npm run bench:proxy`, in its own process (so it
 * can be profiled with `--cpu-prof` and its RSS read alone): one proxy client
 * allowed `/api/v5/orgs/<organization_id>/*` (and the reporting downloads),
 * `log.level: warn`, the store a file in a temporary folder. Prints its URL
 * as one line on stdout; SIGTERM closes it and exits.
 *   node bench/proxy/proxy-gateway.ts <upstream-url>
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startGateway } from '../../src/cli/gateway.ts';
import { loadSettings } from '../../src/config/load.ts';
import { createLogger } from '../../src/log/logger.ts';
import { KEY_SHA256, ORG, PLATFORM_TOKEN } from './proxy-bench-constants.ts';

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error('usage: node bench/proxy/proxy-gateway.ts <upstream-url>');
const dir = mkdtempSync(join(tmpdir(), 'tg-bench-proxy-'));
const file = join(dir, 'threadgate.yaml');
writeFileSync(
  file,
  stringify({
    platform: { url: upstreamUrl, organization_id: ORG, token: PLATFORM_TOKEN },
    store: { path: 'bench.db' },
    log: { level: 'warn' },
    proxy: {
      clients: [
        {
          name: 'bench',
          key_sha256: KEY_SHA256,
          rate_per_minute: 1_000_000,
          allow: [{ paths: ['/api/v5/orgs/<organization_id>/*'] }, { methods: ['POST'], paths: ['/api/reporting/workflow/v1/orgs/<organization_id>/*'] }],
        },
      ],
    },
  }),
);
const loaded = loadSettings({ path: file });
const gateway = await startGateway(loaded, createLogger('warn'), { port: 0 });
process.stdout.write(`${gateway.url}\n`);
process.on('SIGTERM', () => {
  void gateway.close().finally(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
