/**
 * A real gateway in this process against a real sandbox on its own port (the
 * gateway treats it as the platform: `platform.url` set), with a SQLite file
 * in a temp folder — or, with THREADGATE_TEST_STORE=postgres (or
 * `store: 'postgres'`), a fresh database on the run's PostgreSQL cluster.
 * Everything is closed after the test.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { onTestFinished } from 'vitest';
import { stringify } from 'yaml';
import { startGateway, type RunningGateway } from '../../src/cli/gateway.ts';
import { openSettingsStore } from '../../src/cli/store-access.ts';
import { loadSettings } from '../../src/config/load.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestSandbox, type JsonResponse, type TestSandbox } from '../sandbox/support.ts';
import { startOutageProxy, type OutageProxy } from './outage-proxy.ts';
import { postgresDatabase } from './postgres.ts';
import { tempDir } from './temp-dir.ts';

export const RECORDER_MODULE = join(import.meta.dirname, '../fixtures/connectors/recorder.ts');

export interface TestGateway {
  gateway: RunningGateway;
  sandbox: TestSandbox;
  dir: string;
  /** Calls a path of the gateway; JSON in, JSON out. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonResponse>;
}

export interface TestGatewayOptions {
  connectors: Record<string, unknown>[];
  sandbox?: TestSandbox;
  /** Extra top-level settings merged over the defaults. */
  settings?: Record<string, unknown>;
  dir?: string;
  /** The platform address the gateway uses, when not the sandbox's own (an outage proxy in front of it). */
  platformUrl?: string;
  /** Collects every log line (at trace level) here instead of printing them. */
  logLines?: string[];
  /** How long the platform may stay uncalled before the gateway probes it (default 30 s). */
  platformProbeMs?: number;
  /** The store backend (default: THREADGATE_TEST_STORE, else sqlite). */
  store?: 'sqlite' | 'postgres';
  /** A second replica: the same PostgreSQL database as this gateway's (from another folder). */
  sameStoreAs?: TestGateway;
  /** Further `store:` keys (e.g. encryption_key), beside the path or URL chosen here. */
  storeSettings?: Record<string, unknown>;
}

/** The PostgreSQL database of each gateway folder: a gateway started again in the same folder finds its store. */
const databases = new Map<string, string>();

async function storeSettings(dir: string, backend: string | undefined): Promise<Record<string, unknown>> {
  if (backend !== 'postgres') return { path: 'gateway.db' };
  let url = databases.get(dir);
  if (url === undefined) databases.set(dir, (url = await postgresDatabase()));
  return { url };
}

export async function startTestGateway(options: TestGatewayOptions): Promise<TestGateway> {
  const sandbox = options.sandbox ?? (await startTestSandbox({ retryBaseMs: 20 }));
  const dir = options.dir ?? tempDir();
  const shared = options.sameStoreAs && databases.get(options.sameStoreAs.dir);
  if (options.sameStoreAs && shared === undefined) throw new Error('sameStoreAs: that gateway has no PostgreSQL store');
  if (shared !== undefined) databases.set(dir, shared);
  const settings = {
    platform: { url: options.platformUrl ?? sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token },
    store: { ...(await storeSettings(dir, shared !== undefined ? 'postgres' : (options.store ?? process.env.THREADGATE_TEST_STORE))), ...options.storeSettings },
    log: { level: process.env.TEST_LOG_LEVEL ?? 'silent' },
    connectors: options.connectors.map((c) => ({ room_id: sandbox.roomId, ...c })),
    ...options.settings,
  };
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(file, stringify(settings));
  const loaded = loadSettings({ path: file });
  const lines = options.logLines;
  const logger = lines ? createLogger('trace', { write: (line: string) => void lines.push(line) }) : createLogger(loaded.settings.log.level);
  const probe = options.platformProbeMs === undefined ? {} : { platformProbeMs: options.platformProbeMs };
  const gateway = await startGateway(loaded, logger, { port: 0, jobPollMs: 50, ...probe });
  onTestFinished(() => gateway.close());

  const call: TestGateway['call'] = async (method, path, body, headers = {}) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await request(`${gateway.url}${path}`, {
      method: method as 'GET',
      headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: payload,
    });
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body: parsed, text };
  };
  return { gateway, sandbox, dir, call };
}

/** Opens the store of a stopped test gateway (its SQLite file, or its PostgreSQL database) without migrating; closed after the test. */
export async function openStoppedStore(tg: TestGateway): Promise<Store> {
  const store = await openSettingsStore(loadSettings({ path: join(tg.dir, 'threadgate.yaml') }), { migrate: false });
  onTestFinished(() => store.close());
  return store;
}

/** A gateway whose platform is the sandbox behind an outage proxy the test can take down; one recorder connector, `desk`, unless told. */
export async function startGatewayBehindProxy(
  settings: Record<string, unknown> = {},
  connectors: Record<string, unknown>[] = [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }],
): Promise<TestGateway & { proxy: OutageProxy }> {
  const sandbox = await startTestSandbox();
  const proxy = await startOutageProxy(sandbox.url);
  const tg = await startTestGateway({ connectors, sandbox, platformUrl: proxy.url, settings });
  return { ...tg, proxy };
}

/** The visitor messages of a chat on the platform (the sandbox), oldest first. */
export async function chatTexts(tg: TestGateway, chatId: string): Promise<string[]> {
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; sender_type: string; message: string }[];
  return all.filter((m) => m.type === 'msg' && m.sender_type === 'visitor').map((m) => m.message);
}
