/**
 * The one schema of threadgate's settings. Parsed once at start-up, then
 * frozen; the rules across sections are in settings-rules.ts. Connector entries keep their type-specific keys; each connector
 * validates those with its own `configSchema` when it is loaded.
 */
import { z } from 'zod';
import { AlertSettings } from './alert-settings.ts';
import { duration, httpUrl } from './setting-types.ts';
import { settingsRuleProblems } from './settings-rules.ts';

const CONNECTOR_NAME = /^[a-z0-9-]+$/;

/**
 * What names a webhook event for deduplication: its type and id at its `created_at` (the default), or its type
 * and id alone, for a platform that sends an event again with another `created_at`
 * (docs/decisions/webhook-dedup.md).
 */
export const WEBHOOK_DEDUP = ['id_and_created_at', 'id'] as const;
export type WebhookDedup = (typeof WEBHOOK_DEDUP)[number];

export const PlatformSettings = z.strictObject({
  /** The platform's API address. Absent: the embedded sandbox is started and used. */
  url: httpUrl.optional(),
  builder_url: httpUrl.optional(),
  /** Where sign-in lives (`/authorize`, `/callback`, `/token`); default: platform.url. */
  auth_url: httpUrl.optional(),
  organization_id: z.uuid().optional(),
  token: z.string().min(1).optional(),
  token_type: z.enum(['Token', 'Bearer']).default('Token'),
  timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  signature: z
    .strictObject({
      payload: z.enum(['timestamp.body', 'body']).default('timestamp.body'),
      tolerance_seconds: z.number().int().min(1).max(86_400).default(300),
    })
    .prefault({}),
  webhook_dedup: z.enum(WEBHOOK_DEDUP).default('id_and_created_at'),
});

export const ServerSettings = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(8080),
  /**
   * Address the platform reaches this gateway at. Required with a platform.url
   * that is not on loopback, and then not itself on a loopback, link-local or
   * unspecified address; otherwise it defaults to http://host:port.
   */
  public_url: httpUrl.optional(),
  admin_token: z.string().min(16, { error: 'admin_token must have at least 16 characters' }).optional(),
  body_limit_bytes: z.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  shutdown_timeout_ms: z.number().int().min(0).max(300_000).default(10_000),
});

/** TLS to PostgreSQL, as node-postgres names it (`true`: verify against the system's CAs). */
const PostgresTls = z.union([
  z.boolean(),
  z.strictObject({
    /** PEM text of the CA(s) to trust (e.g. `${PG_CA}` from the environment). */
    ca: z.string().min(1).optional(),
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
    /** false accepts any certificate (testing only). */
    rejectUnauthorized: z.boolean().optional(),
    servername: z.string().min(1).optional(),
  }),
]);

export const StoreSettings = z
  .strictObject({
    /** The SQLite file (one machine); not used when `url` is set. */
    path: z.string().min(1).default('./data/threadgate.db'),
    /** PostgreSQL instead of SQLite, for several replicas on one database: `postgres://user:password@host:5432/db`. */
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\/[^/]/, { error: 'must be a postgres://user:password@host:port/database URL' })
      .optional(),
    /**
     * Seals the few secrets connectors keep in the store (a refresh token the mail provider rotated): any string of
     * at least 32 characters, e.g. `openssl rand -base64 32`. Also THREADGATE_STORE_ENCRYPTION_KEY.
     */
    encryption_key: z.string().min(32, { error: 'must be at least 32 characters (e.g. openssl rand -base64 32)' }).optional(),
    /** Connections of each replica to PostgreSQL. */
    pool_size: z.number().int().min(1).max(200).default(10),
    /**
     * PostgreSQL: connections that commit groups of writes at once (the writes of one moment share a transaction and
     * its flush); 0 commits every write on its own. At most pool_size; unset: 4, or pool_size if smaller.
     */
    write_connections: z.number().int().min(0).max(200).optional(),
    /** TLS to PostgreSQL (also `?sslmode=` in the URL). */
    ssl: PostgresTls.optional(),
    /** Statements prepared once per PostgreSQL connection; false behind PgBouncer (before 1.21) in transaction mode. */
    prepared_statements: z.boolean().default(true),
    /**
     * PostgreSQL: a job queued on one replica, or a lease given back, wakes the others at once (NOTIFY after the
     * commit, LISTEN on a connection of each replica's own); false behind a pooler in transaction mode, where
     * LISTEN cannot work: jobs queued elsewhere then wait for the runners' next poll (every second).
     */
    wakeups: z.boolean().default(true),
    /** `full` survives power loss; `normal` only process crashes (faster). */
    synchronous: z.enum(['full', 'normal']).default('full'),
    busy_timeout_ms: z.number().int().min(0).max(60_000).default(5_000),
    /** Delivery and inbound records older than this are pruned (hourly). */
    retention_days: z.number().int().min(1).max(3_650).default(30),
    /** Delivered webhook bodies are kept up to this size; the cut is recorded. */
    max_stored_body_bytes: z.number().int().min(1_024).max(64 * 1024 * 1024).default(256 * 1024),
    /** Refused webhooks (bad signature, bad body…): anyone can send them, so little of them is kept, briefly. */
    refused: z
      .strictObject({
        /** Bytes kept of a refused body; the cut is recorded. */
        keep_body_bytes: z.number().int().min(0).max(64 * 1024).default(4 * 1024),
        /** Refused records are pruned after this many hours (or store.retention_days, if shorter). */
        retention_hours: z.number().int().min(1).max(87_600).default(24),
        /** All stored refused records together; past it, refusals are counted and logged, not stored. 0: none stored. */
        max_total_bytes: z.number().int().min(0).max(16 * 1024 ** 3).default(64 * 1024 ** 2),
        /** Stored refusals a minute per connector; past it, counted and logged, not stored. */
        per_minute: z.number().int().min(0).max(10_000).default(60),
      })
      .prefault({}),
  })
  .refine((store) => store.write_connections === undefined || store.write_connections <= store.pool_size, {
    path: ['write_connections'],
    error: 'must not be more than pool_size',
  });

/** A host name as a URL holds it (`files.example.com`, `10.0.0.7`, `[::1]`), compared in lower case. */
const HOST_NAME = /^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*)$/i;

/**
 * The file store (attachments kept for the platform's agents, src/bridge/files.ts) and the downloads of agents'
 * attachments (src/bridge/attachment-fetcher.ts).
 */
export const FileSettings = z.strictObject({
  /** A stored file's link works this many days (or store.retention_days, if shorter); then the file is pruned. */
  link_ttl_days: z.number().int().min(1).max(3_650).default(30),
  /** The most bytes one attachment of an agent's message may have when a connector downloads it (also the ceiling of its own limit). */
  max_fetch_bytes: z.number().int().min(1).max(1024 ** 3).default(25 * 1024 ** 2),
  /** Hosts besides the platform's own that agents' attachments may be downloaded from (a CDN); exact names, no wildcards. */
  fetch_hosts: z
    .array(z.string().regex(HOST_NAME, { error: 'expected a host name such as files.example.com (no scheme, port or path)' }).transform((h) => h.toLowerCase()))
    .default([]),
});

export const SandboxSettings = z.strictObject({
  /** Port of the embedded sandbox when no platform.url is set; 0 picks a free one (the one it had before, when free). */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Keep the embedded sandbox's chats, ids and token across restarts, in `<store.path>.sandbox` (SQLite stores only). */
  keep_state: z.boolean().default(true),
});

export const JobSettings = z
  .strictObject({
    /**
     * How long a connector delivery (mail, note, webhook out) or a platform POST
     * is retried from when it was queued (or retried by hand) before it is
     * dead-lettered with its last error.
     */
    retry_for: duration('1s', '90d').prefault('3d'),
    /** The first retry's delay; it doubles per try up to backoff_max, each delay jittered to between half and all of it. */
    backoff_first: duration('10ms', '1h').prefault('1s'),
    backoff_max: duration('10ms', '1d').prefault('15m'),
    /**
     * Safety caps on tries (connector deliveries; platform POSTs). Unset: 1000, or more where the backoff is short
     * enough that 1000 tries would end before retry_for (cli/retry-policy.ts), so only the deadline ends retries.
     */
    max_attempts: z.number().int().min(1).max(100_000).optional(),
    platform_max_attempts: z.number().int().min(1).max(100_000).optional(),
    /** Jobs of one kind running at once. */
    concurrency: z.number().int().min(1).max(256).default(32),
    /**
     * How long a claimed job is held without a heartbeat. After a crash the
     * jobs that were running are taken up again once this has passed.
     */
    lease_seconds: z.number().int().min(1).max(3_600).default(30),
  })
  .refine((jobs) => jobs.backoff_first <= jobs.backoff_max, { path: ['backoff_first'], error: 'must not be longer than backoff_max' });

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** When a connector counts as down (bridge/delivery-health.ts), besides its own report. */
export const HealthSettings = z.strictObject({
  /** Delivery attempts in a row that failed before the connector is down; 0: never by count. */
  delivery_failures: z.number().int().min(0).max(1_000_000).default(3),
  /** Or failing with none succeeding for this long (`0s`: never by time). */
  delivery_failing_for: z.union([z.literal('0s').transform(() => 0), duration('1s', '30d')]).prefault('5m'),
});

export const ProxyClient = z.strictObject({
  name: z.string().regex(CONNECTOR_NAME, { error: 'expected lower-case letters, digits and dashes' }),
  /** Hex SHA-256 of the key the caller presents as `Authorization: Bearer <key>`; the key itself is never stored. */
  key_sha256: z.string().regex(HEX_SHA256, { error: 'expected 64 lower-case hex characters (sha256 of the key)' }),
  /** What the caller may do: methods and documented path patterns (`/api/v5/orgs/<organization_id>/*`). */
  allow: z
    .array(
      z.strictObject({
        methods: z.array(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', '*'])).min(1).default(['*']),
        paths: z.array(z.string().startsWith('/', { error: 'a path pattern starts with /' })).min(1),
      }),
    )
    .min(1),
  /** Requests a minute; past it, 429 with Retry-After. */
  rate_per_minute: z.number().int().min(1).max(1_000_000).default(600),
});
export type ProxyClient = z.infer<typeof ProxyClient>;

export const ProxySettings = z.strictObject({
  clients: z.array(ProxyClient).default([]),
  /** Forward paths the documents do not list (default: 404). */
  passthrough_unknown: z.boolean().default(false),
  /** Pass the caller's own Authorization to the platform instead of a gateway key check and the platform token. */
  forward_caller_authorization: z.boolean().default(false),
  timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
});

export const LogSettings = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** json: one JSON object a line (machines); pretty: one readable line an event (people reading live). */
  format: z.enum(['json', 'pretty']).default('json'),
});

export const ConnectorEntry = z.looseObject({
  name: z.string().regex(CONNECTOR_NAME, { error: 'expected lower-case letters, digits and dashes' }).max(64),
  type: z.string().min(1),
  /** Room of the platform that receives this connector's messages. */
  room_id: z.uuid().optional(),
  /** Module path of a connector that is not bundled (resolved from the config file's folder). */
  module: z.string().min(1).optional(),
  /** The platform's free-form channel type of this connector's configuration; default: the connector type. */
  messaging_channel: z.string().min(1).max(64).optional(),
  /** How often the platform retries a webhook to this connector (its configuration's max_retry_count). */
  max_retry_count: z.number().int().min(0).max(100).optional(),
  /** This connector's threads posted to the platform at once, by each gateway process (default jobs.concurrency). */
  platform_concurrency: z.number().int().min(1).max(256).optional(),
});
export type ConnectorEntry = z.infer<typeof ConnectorEntry>;

/** The sections of the settings, each checked on its own by `config check` (settings-check.ts). */
export const SettingsSections = z.strictObject({
  platform: PlatformSettings.prefault({}),
  server: ServerSettings.prefault({}),
  store: StoreSettings.prefault({}),
  files: FileSettings.prefault({}),
  sandbox: SandboxSettings.prefault({}),
  log: LogSettings.prefault({}),
  health: HealthSettings.prefault({}),
  jobs: JobSettings.prefault({}),
  proxy: ProxySettings.prefault({}),
  /** Absent: no alerts are sent (Prometheus rules in deploy/ watch the same conditions). */
  alerts: AlertSettings.optional(),
  connectors: z.array(ConnectorEntry).default([]),
});

/** The settings: every section, then the rules across them (settings-rules.ts). */
export const Settings = SettingsSections.superRefine((settings, ctx) => {
  for (const { path, message } of settingsRuleProblems(settings)) ctx.addIssue({ code: 'custom', path, message });
});

export type Settings = z.infer<typeof Settings>;
