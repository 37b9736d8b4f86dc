CREATE TABLE `channel_registrations` (
	`connector` text PRIMARY KEY NOT NULL,
	`config_id` text NOT NULL,
	`name` text NOT NULL,
	`room_id` text NOT NULL,
	`reply_webhook_url` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `connector_state` (
	`connector` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`connector`, `key`)
);
