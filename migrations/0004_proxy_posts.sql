CREATE TABLE `proxy_message_posts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`config_id` text NOT NULL,
	`message_id` text NOT NULL,
	`status` integer NOT NULL,
	`response` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `proxy_message_posts_key` ON `proxy_message_posts` (`config_id`,`message_id`);--> statement-breakpoint
CREATE INDEX `proxy_message_posts_created` ON `proxy_message_posts` (`created_at`);