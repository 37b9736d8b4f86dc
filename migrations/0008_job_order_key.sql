ALTER TABLE `jobs` ADD `order_key` text;--> statement-breakpoint
CREATE INDEX `jobs_order` ON `jobs` (`order_key`,`status`);