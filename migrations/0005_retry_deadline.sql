ALTER TABLE `jobs` ADD `retry_for_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `give_up_at` integer;