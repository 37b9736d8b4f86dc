-- Every finished job has its finished_at and no live one has, the condition of jobs_order (finished jobs of
-- versions that did not set it get their last change's time).
UPDATE `jobs` SET `finished_at` = `updated_at` WHERE `status` IN ('done', 'dead') AND `finished_at` IS NULL;--> statement-breakpoint
UPDATE `jobs` SET `finished_at` = NULL WHERE `status` IN ('queued', 'running') AND `finished_at` IS NOT NULL;--> statement-breakpoint
DROP INDEX `jobs_due`;--> statement-breakpoint
DROP INDEX `jobs_order`;--> statement-breakpoint
CREATE INDEX `jobs_due` ON `jobs` (`kind`,`run_at`) WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX `jobs_order` ON `jobs` (`order_key`) WHERE finished_at is null;