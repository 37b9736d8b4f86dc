-- A delivery's outcome is an update in place (HOT): no index of deliveries names `status`, so its move from
-- `accepted` to `delivered` or `skipped` writes the row's new version beside the old one on the same page and adds
-- no index entries (docs/decisions/postgres-deliveries-settle-in-place.md). PostgreSQL updates in place only when
-- no column an index uses (its keys or its predicate) changes, and only with room on the page: deliveries leave 30 %
-- of each page free.
--
-- The statuses an operator looks up among many rows (rejected, failed, dead) stay indexed through `flagged_status`,
-- a copy of `status` kept only for them, so it changes on the rare moves into and out of them and not on a success.
-- The queries that filter on those statuses name it as well (src/store/delivery-status-sql.ts).
ALTER TABLE deliveries SET (fillfactor = 70);
ALTER TABLE deliveries ADD COLUMN flagged_status text
  GENERATED ALWAYS AS (CASE WHEN status IN ('rejected', 'failed', 'dead') THEN status END) STORED;
DROP INDEX deliveries_status;
CREATE INDEX deliveries_flagged ON deliveries (flagged_status, received_at) WHERE flagged_status IS NOT NULL;
