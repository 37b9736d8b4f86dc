/**
 * The platform a gateway talks to: the one its settings name, or, when
 * `platform.url` is not set, the embedded sandbox, started here on
 * `sandbox.port` with the settings' signature scheme.
 */
import type { LoadedSettings } from '../config/load.ts';
import type { Settings } from '../config/schema.ts';
import { storeOptions } from './store-access.ts';
import type { Logger } from '../log/logger.ts';
import type { RunningSandbox } from '../sandbox/index.ts';

export interface PlatformTarget {
  url: string;
  organizationId: string;
  token: string;
  tokenType: 'Token' | 'Bearer';
  embedded: boolean;
  /** The room connectors without room_id use (the sandbox's seeded room). */
  defaultRoomId: string | undefined;
}

/**
 * Where the embedded sandbox keeps its state across restarts: beside the SQLite store (`<store.path>.sandbox`);
 * none with a PostgreSQL store or `sandbox.keep_state: false`.
 */
export function sandboxFileOf(loaded: LoadedSettings): string | undefined {
  const { settings } = loaded;
  if (!settings.sandbox.keep_state || settings.store.url !== undefined) return undefined;
  return `${storeOptions(loaded).path}.sandbox`;
}

/** The target, and the sandbox started for it (null for a configured platform); the caller closes the sandbox. */
export async function platformTarget(settings: Settings, logger: Logger, sandboxFile?: string): Promise<{ platform: PlatformTarget; sandbox: RunningSandbox | null }> {
  if (settings.platform.url !== undefined) {
    return {
      platform: {
        url: settings.platform.url,
        organizationId: settings.platform.organization_id ?? '',
        token: settings.platform.token ?? '',
        tokenType: settings.platform.token_type,
        embedded: false,
        defaultRoomId: undefined,
      },
      sandbox: null,
    };
  }
  // Loaded only when it runs: a gateway against a real platform does not hold the sandbox's code.
  const { startSandbox } = await import('../sandbox/index.ts');
  const sandbox = await startSandbox({
    port: settings.sandbox.port,
    logger: logger.child({ room: 'sandbox' }),
    // The gateway probes its platform every 30 s when idle: those requests' lines only at debug.
    requestLogLevel: 'debug',
    persistFile: sandboxFile,
    signaturePayload: settings.platform.signature.payload,
  });
  return {
    platform: {
      url: sandbox.url,
      organizationId: sandbox.organizationId,
      token: sandbox.token,
      tokenType: sandbox.tokenType,
      embedded: true,
      defaultRoomId: sandbox.roomId,
    },
    sandbox,
  };
}
