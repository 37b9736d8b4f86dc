-- threadgate's schema on PostgreSQL: the same tables, columns and indexes as the SQLite migrations 0000–0006
-- (drizzle-kit's, in the folder above), written by hand: drizzle cannot share one schema across the two
-- (docs/decisions/postgres-store.md). Times are milliseconds since the epoch (bigint), flags 0/1
-- integers and JSON text, as on SQLite, so the repositories' SQL is the same on both.
-- thread_references has `seq`: the order references were attached in (SQLite's rowid).

CREATE TABLE channel_registrations (
  connector text PRIMARY KEY NOT NULL,
  config_id text NOT NULL,
  name text NOT NULL,
  room_id text NOT NULL,
  reply_webhook_url text NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at bigint,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL
);

CREATE TABLE connector_state (
  connector text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  PRIMARY KEY (connector, key)
);

CREATE TABLE jobs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  payload text NOT NULL,
  status text DEFAULT 'queued' NOT NULL,
  attempts integer DEFAULT 0 NOT NULL,
  max_attempts integer NOT NULL,
  run_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  lease_owner text,
  lease_until bigint,
  last_error text,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  finished_at bigint,
  retry_for_ms bigint,
  give_up_at bigint
);
CREATE INDEX jobs_due ON jobs (kind, status, run_at);
CREATE INDEX jobs_status ON jobs (status);

CREATE TABLE deliveries (
  id bigserial PRIMARY KEY,
  connector text NOT NULL,
  event_type text,
  dedup_key text,
  duplicate_of bigint,
  thread_id text,
  chat_id text,
  body text NOT NULL,
  body_truncated integer DEFAULT 0 NOT NULL,
  headers text NOT NULL,
  verification text NOT NULL,
  status text NOT NULL,
  error text,
  external_id text,
  job_id bigint,
  received_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL
);
CREATE UNIQUE INDEX deliveries_dedup ON deliveries (connector, dedup_key) WHERE dedup_key IS NOT NULL AND duplicate_of IS NULL;
CREATE INDEX deliveries_status ON deliveries (status, received_at);
CREATE INDEX deliveries_received ON deliveries (received_at);

CREATE TABLE threads (
  id bigserial PRIMARY KEY,
  connector text NOT NULL,
  thread_key text NOT NULL,
  thread_id text NOT NULL,
  chat_id text,
  mapping_id text,
  closed integer DEFAULT 0 NOT NULL,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL
);
CREATE UNIQUE INDEX threads_key ON threads (connector, thread_key);
CREATE UNIQUE INDEX threads_thread_id ON threads (connector, thread_id);
CREATE INDEX threads_chat ON threads (chat_id);

CREATE TABLE inbound_messages (
  id bigserial PRIMARY KEY,
  connector text NOT NULL,
  external_id text NOT NULL,
  kind text DEFAULT 'message' NOT NULL,
  thread bigint NOT NULL REFERENCES threads (id),
  sender_id text NOT NULL,
  sender_name text,
  sender_type text DEFAULT 'visitor' NOT NULL,
  body text NOT NULL,
  full_text text,
  variables text,
  skip_waiting_state integer DEFAULT 0 NOT NULL,
  close_session integer DEFAULT 0 NOT NULL,
  status text DEFAULT 'pending' NOT NULL,
  chat_id text,
  platform_message_id text,
  is_new_session integer,
  last_error text,
  job_id bigint,
  received_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  posted_at bigint
);
CREATE UNIQUE INDEX inbound_dedup ON inbound_messages (connector, external_id);
CREATE INDEX inbound_thread_status ON inbound_messages (thread, status, id);
CREATE INDEX inbound_status ON inbound_messages (status);

CREATE TABLE skipped_inbound (
  id bigserial PRIMARY KEY,
  connector text NOT NULL,
  external_id text NOT NULL,
  sender_id text,
  summary text,
  code text NOT NULL,
  reason text NOT NULL,
  received_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL
);
CREATE UNIQUE INDEX skipped_dedup ON skipped_inbound (connector, external_id);
CREATE INDEX skipped_received ON skipped_inbound (received_at);

CREATE TABLE thread_references (
  connector text NOT NULL,
  reference text NOT NULL,
  thread bigint NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  seq bigserial NOT NULL,
  PRIMARY KEY (connector, reference)
);
CREATE INDEX thread_references_thread ON thread_references (thread, seq);

CREATE TABLE delivery_attempts (
  id bigserial PRIMARY KEY,
  delivery bigint NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  job_id bigint,
  attempt integer NOT NULL,
  replay integer DEFAULT 0 NOT NULL,
  started_at bigint NOT NULL,
  ended_at bigint,
  outcome text NOT NULL,
  error text,
  external_id text
);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery);

CREATE TABLE inbound_attempts (
  id bigserial PRIMARY KEY,
  inbound bigint NOT NULL REFERENCES inbound_messages (id) ON DELETE CASCADE,
  job_id bigint,
  attempt integer NOT NULL,
  started_at bigint NOT NULL,
  ended_at bigint NOT NULL,
  outcome text NOT NULL,
  status integer,
  error text,
  chat_id text
);
CREATE INDEX inbound_attempts_inbound ON inbound_attempts (inbound);

CREATE TABLE proxy_message_posts (
  id bigserial PRIMARY KEY,
  config_id text NOT NULL,
  message_id text NOT NULL,
  status integer NOT NULL,
  response text NOT NULL,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL
);
CREATE UNIQUE INDEX proxy_message_posts_key ON proxy_message_posts (config_id, message_id);
CREATE INDEX proxy_message_posts_created ON proxy_message_posts (created_at);
