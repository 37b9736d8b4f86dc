/** What `startGateway` (gateway.ts) hands back, and what a caller may override of the settings. */
import type { FastifyInstance } from 'fastify';
import type { Bridge } from '../bridge/bridge.ts';
import type { FileService } from '../bridge/files.ts';
import type { ConnectorEntry } from '../config/schema.ts';
import type { ConnectorRuntime } from '../connector/runtime.ts';
import type { GatewayHealth } from '../http/gateway-health.ts';
import type { RunningSandbox } from '../sandbox/index.ts';
import type { Store } from '../store/database.ts';
import type { PlatformTarget } from './platform-target.ts';
import type { ReloadOutcome } from './reload.ts';

export interface RunningGateway {
  url: string;
  publicUrl: string;
  platform: PlatformTarget;
  store: Store;
  app: FastifyInstance;
  sandbox: RunningSandbox | null;
  bridge: Bridge;
  /** The file store behind each connector's `ctx.files` and /files/<id>. */
  files: FileService;
  connectors: ConnectorRuntime;
  /** Readiness and the platform's and connectors' health (/readyz, /metrics, the admin overview). */
  health: GatewayHealth;
  /** Reads the settings file again and applies a changed platform token (SIGHUP); undefined when nothing could be read. `watched`: connectors serve --watch makes anew itself. */
  reload(watched?: ReadonlySet<string>): ReloadOutcome | undefined;
  /** Makes a connector of its own module anew from that module, loaded again, and `entry` (serve --watch). */
  reloadConnector(entry: ConnectorEntry): Promise<void>;
  baseDir: string; // where the settings' relative paths start
  close(): Promise<void>;
}

export interface GatewayOverrides {
  host?: string | undefined;
  port?: number | undefined;
  /** How often job loops look at the table for work from other processes (tests shorten it). */
  jobPollMs?: number;
  /** How long the platform may stay uncalled before a probe checks it (tests shorten it). */
  platformProbeMs?: number;
}
