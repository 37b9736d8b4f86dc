/**
 * The composition root of `serve`: store, platform (the configured one, or the
 * embedded sandbox when no platform.url is set) and the HTTP app, started in
 * order and stopped in reverse.
 */
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { LoadedSettings } from '../config/load.ts';
import { buildApp } from '../http/app.ts';
import type { Logger } from '../logger.ts';
import { startSandbox, type RunningSandbox } from '../sandbox/index.ts';
import { openStore, type Store } from '../store/database.ts';

export interface PlatformTarget {
  url: string;
  organizationId: string;
  token: string;
  tokenType: 'Token' | 'Bearer';
  embedded: boolean;
}

export interface RunningGateway {
  url: string;
  publicUrl: string;
  platform: PlatformTarget;
  store: Store;
  app: FastifyInstance;
  sandbox: RunningSandbox | null;
  close(): Promise<void>;
}

export interface GatewayOverrides {
  host?: string | undefined;
  port?: number | undefined;
}

export async function startGateway(
  loaded: LoadedSettings,
  logger: Logger,
  overrides: GatewayOverrides = {},
): Promise<RunningGateway> {
  const { settings, baseDir } = loaded;
  const store = openStore({
    path: resolve(baseDir, settings.store.path),
    synchronous: settings.store.synchronous,
    busyTimeoutMs: settings.store.busy_timeout_ms,
  });
  let sandbox: RunningSandbox | null = null;
  let app: FastifyInstance | null = null;
  try {
    let platform: PlatformTarget;
    if (settings.platform.url === undefined) {
      sandbox = await startSandbox({ port: settings.sandbox.port, logger: logger.child({ room: 'sandbox' }) });
      platform = {
        url: sandbox.url,
        organizationId: sandbox.organizationId,
        token: sandbox.token,
        tokenType: sandbox.tokenType,
        embedded: true,
      };
    } else {
      platform = {
        url: settings.platform.url,
        organizationId: settings.platform.organization_id ?? '',
        token: settings.platform.token ?? '',
        tokenType: settings.platform.token_type,
        embedded: false,
      };
    }
    app = buildApp({ settings, store, logger });
    const host = overrides.host ?? settings.server.host;
    const address = await app.listen({ host, port: overrides.port ?? settings.server.port });
    const url = address.replace('[::1]', '127.0.0.1');
    const publicUrl = settings.server.public_url ?? url.replace('0.0.0.0', '127.0.0.1');
    logger.info(
      { event: 'gateway_ready', url, public_url: publicUrl, platform: platform.embedded ? 'embedded sandbox' : platform.url },
      'threadgate is ready',
    );
    const started = { app, sandbox };
    return {
      url,
      publicUrl,
      platform,
      store,
      app,
      sandbox,
      close: async () => {
        await started.app.close(); // stop accepting, finish in-flight requests
        await started.sandbox?.close();
        store.close();
      },
    };
  } catch (err) {
    await app?.close();
    await sandbox?.close();
    store.close();
    throw err;
  }
}
