-- Files connectors keep for the platform's agents (mail attachments), served through signed links; SQLite's 0009_files.
-- The bytes are a bytea here (a BLOB there); both drivers take and answer a Buffer.
CREATE TABLE files (
  id text PRIMARY KEY NOT NULL,
  connector text NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  content bytea NOT NULL,
  created_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX files_expires ON files (expires_at);
