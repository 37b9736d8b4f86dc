/**
 * Several real `threadgate serve` processes on one PostgreSQL database behind
 * a round-robin balancer (./balancer.ts) — the deployment docs/deployment.md
 * describes, on this machine. Every replica has its own folder, config file
 * and port (a replica restarted comes back on the same upstream; one whose
 * port another process took since it was found free starts on a new one, which
 * the balancer reads at each request), the
 * same `store.url` and the balancer's address as `server.public_url`, so the
 * platform's webhooks reach whichever replica the balancer picks. A test
 * SIGKILLs replicas and starts them again. Every process is killed after the
 * test.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startTestSandbox, type TestSandbox } from '../sandbox/support.ts';
import { startBalancer, type Balancer } from './balancer.ts';
import { startCli, type LongRunning } from './cli.ts';
import { freePort } from './ports.ts';
import { postgresDatabase } from './postgres.ts';
import { tempDir } from './temp-dir.ts';

export interface Replica {
  index: number;
  port: number;
  url: string;
  /** Its config file (the CLI run beside it uses the same). */
  configFile: string;
  /** The running process, or undefined while the replica is down. */
  process: LongRunning | undefined;
  /** How often this replica was started. */
  starts: number;
}

export interface ClusterOptions {
  replicas: number;
  connectors: Record<string, unknown>[];
  /** Extra top-level settings merged over the defaults (e.g. `jobs`). */
  settings?: Record<string, unknown>;
  /** The database's URL (default: a new empty database on the run's cluster). */
  storeUrl?: string;
  sandbox?: TestSandbox;
}

export interface ReplicaCluster {
  replicas: Replica[];
  balancer: Balancer;
  sandbox: TestSandbox;
  storeUrl: string;
  /** Starts replica `i` and resolves once it logged `gateway_ready`. */
  start(i: number): Promise<void>;
  /** SIGKILL: no shutdown, no goodbye to the database or the mailbox. */
  kill(i: number): Promise<void>;
  /** The indexes of the replicas running now. */
  up(): number[];
}

const READY_MS = 45_000;

export async function startReplicaCluster(options: ClusterOptions): Promise<ReplicaCluster> {
  // The platform retries a webhook that found no replica for a while (spec 03: retries with backoff).
  const sandbox = options.sandbox ?? (await startTestSandbox({ retryBaseMs: 50 }));
  const storeUrl = options.storeUrl ?? (await postgresDatabase());
  const replicas: Replica[] = [];
  for (let index = 0; index < options.replicas; index++) {
    const port = await freePort();
    const configFile = join(tempDir(), 'threadgate.yaml');
    replicas.push({ index, port, url: `http://127.0.0.1:${port}`, configFile, process: undefined, starts: 0 });
  }
  const balancer = await startBalancer(() => replicas.map((r) => r.port));
  const settings = {
    platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
    store: { url: storeUrl, pool_size: 4 },
    server: { public_url: balancer.url },
    log: { level: 'info' },
    connectors: options.connectors.map((c) => ({ room_id: sandbox.roomId, max_retry_count: 12, ...c })),
    ...options.settings,
  };
  for (const replica of replicas) writeFileSync(replica.configFile, stringify(settings));

  const cluster: ReplicaCluster = {
    replicas,
    balancer,
    sandbox,
    storeUrl,
    async start(i) {
      const replica = replicas[i]!;
      if (replica.process !== undefined) throw new Error(`replica ${i} is running`);
      replica.starts += 1;
      for (let attempt = 1; ; attempt++) {
        const proc = startCli(['serve', '--config', replica.configFile, '--port', String(replica.port)]);
        replica.process = proc;
        try {
          await proc.waitForLine((l) => l.event === 'gateway_ready', READY_MS);
          return;
        } catch (err) {
          // freePort() reserves nothing: another process of the run may have taken the port since (ports.ts).
          if (attempt === 3 || !String(err).includes('TG_LISTEN_FAILED')) throw err;
          replica.port = await freePort();
          replica.url = `http://127.0.0.1:${replica.port}`;
        }
      }
    },
    async kill(i) {
      const proc = replicas[i]!.process;
      if (proc === undefined) return;
      proc.child.kill('SIGKILL');
      await proc.exited;
      replicas[i]!.process = undefined;
    },
    up: () => replicas.filter((r) => r.process !== undefined).map((r) => r.index),
  };
  return cluster;
}

/** Starts every replica of the cluster at the same instant. */
export async function startAll(cluster: ReplicaCluster): Promise<void> {
  await Promise.all(cluster.replicas.map((r) => cluster.start(r.index)));
}
