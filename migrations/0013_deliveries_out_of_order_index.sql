-- A webhook's delivery jobs leave the order index: their key (the platform's thread) is random, one page of the
-- index written per delivery queued; on SQLite nothing reads a delivery's order from the store (src/store/sqlite/order-index.ts).
DROP INDEX `jobs_order`;--> statement-breakpoint
CREATE INDEX `jobs_order` ON `jobs` (`order_key`) WHERE finished_at is null and kind <> 'connector.deliver';