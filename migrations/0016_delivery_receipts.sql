-- Delivery receipts (src/store/receipts-repo.ts): what the other side reported of a message a connector sent, by the
-- id it gave it (a delivery's external_id), at the furthest status reported (sent < delivered < read < failed).
CREATE TABLE `delivery_receipts` (
	`connector` text NOT NULL,
	`external_id` text NOT NULL,
	`status` text NOT NULL,
	`at` integer NOT NULL,
	`reason` text,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`connector`, `external_id`)
);
--> statement-breakpoint
CREATE INDEX `delivery_receipts_updated` ON `delivery_receipts` (`updated_at`);