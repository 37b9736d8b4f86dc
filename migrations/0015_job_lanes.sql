-- A kind's queue is read per lane (jobs/lanes.ts): the due index leads with the kind and the lane. A platform post's
-- lane is its connector: every post or close that may still run (a dead one may be retried) gets it from its payload,
-- before the index is built again.
DROP INDEX `jobs_due`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `lane` text;--> statement-breakpoint
UPDATE `jobs` SET `lane` = json_extract(`payload`, '$.connector') WHERE `kind` IN ('platform.post_messages', 'platform.close_session') AND `status` IN ('queued', 'running', 'dead');--> statement-breakpoint
CREATE INDEX `jobs_due` ON `jobs` (`kind`,`lane`,`run_at`) WHERE status = 'queued';
