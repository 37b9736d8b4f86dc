DROP INDEX `jobs_due`;--> statement-breakpoint
DROP INDEX `jobs_status`;--> statement-breakpoint
DROP INDEX `jobs_order`;--> statement-breakpoint
CREATE INDEX `jobs_due` ON `jobs` (`kind`,`status`,`run_at`) WHERE status = 'queued' or status = 'running';--> statement-breakpoint
CREATE INDEX `jobs_status` ON `jobs` (`status`,`kind`);--> statement-breakpoint
CREATE INDEX `jobs_order` ON `jobs` (`order_key`,`status`) WHERE status = 'queued' or status = 'running';