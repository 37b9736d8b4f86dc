-- Delivery receipts (src/store/receipts-repo.ts): what the other side reported of a message a connector sent, by the
-- id it gave it (a delivery's external_id), at the furthest status reported (sent < delivered < read < failed);
-- SQLite's 0016_delivery_receipts.
CREATE TABLE delivery_receipts (
  connector text NOT NULL,
  external_id text NOT NULL,
  status text NOT NULL,
  at bigint NOT NULL,
  reason text,
  updated_at bigint DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint NOT NULL,
  PRIMARY KEY (connector, external_id)
);
CREATE INDEX delivery_receipts_updated ON delivery_receipts (updated_at);
