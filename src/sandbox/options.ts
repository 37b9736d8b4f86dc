/** The sandbox's options and their defaults. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SignaturePayload } from '../platform/signature.ts';

export interface SandboxOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default a random UUID. */
  organizationId?: string;
  /** Default a random UUID. */
  roomId?: string;
  /** The API token of the seeded agent, with the settings scope. Default 40 random hex characters. */
  token?: string;
  /** Default false (silent). */
  logger?: Logger | false;
  /**
   * The level of its two lines per request (`incoming request`, `request completed`). Default 'info'; the
   * gateway's embedded sandbox takes 'debug', so the gateway's own probes of it every 30 s stay out of its log.
   */
  requestLogLevel?: 'info' | 'debug';
  /** What the webhook signature covers. Default 'timestamp.body'. */
  signaturePayload?: SignaturePayload;
  /** The webhook retry unit: the nth retry waits retryBaseMs * 2^n + 0..retryBaseMs. Default 1000. */
  retryBaseMs?: number;
  /** Per-attempt webhook timeout. Default 5000 (spec 03). */
  webhookTimeoutMs?: number;
  /** Keep the state in this file across restarts (persistence.ts); default: in memory only. */
  persistFile?: string | undefined;
}

export type ResolvedSandboxOptions = Readonly<Required<Omit<SandboxOptions, 'persistFile'>>> & { readonly persistFile: string | undefined };

export const DEFAULT_RETRY_BASE_MS = 1000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5000;

export function resolveOptions(options: SandboxOptions): ResolvedSandboxOptions {
  return Object.freeze({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    organizationId: options.organizationId ?? randomUUID(),
    roomId: options.roomId ?? randomUUID(),
    token: options.token ?? randomBytes(20).toString('hex'),
    logger: options.logger ?? false,
    requestLogLevel: options.requestLogLevel ?? 'info',
    signaturePayload: options.signaturePayload ?? 'timestamp.body',
    retryBaseMs: options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS,
    webhookTimeoutMs: options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    persistFile: options.persistFile,
  });
}
