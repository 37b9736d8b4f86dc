CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`connector` text NOT NULL,
	`event_type` text,
	`dedup_key` text,
	`duplicate_of` integer,
	`thread_id` text,
	`chat_id` text,
	`body` text NOT NULL,
	`body_truncated` integer DEFAULT 0 NOT NULL,
	`headers` text NOT NULL,
	`verification` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`external_id` text,
	`job_id` integer,
	`received_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_dedup` ON `deliveries` (`connector`,`dedup_key`) WHERE dedup_key is not null and duplicate_of is null;--> statement-breakpoint
CREATE INDEX `deliveries_status` ON `deliveries` (`status`,`received_at`);--> statement-breakpoint
CREATE INDEX `deliveries_received` ON `deliveries` (`received_at`);--> statement-breakpoint
CREATE TABLE `inbound_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`connector` text NOT NULL,
	`external_id` text NOT NULL,
	`kind` text DEFAULT 'message' NOT NULL,
	`thread` integer NOT NULL,
	`sender_id` text NOT NULL,
	`sender_name` text,
	`sender_type` text DEFAULT 'visitor' NOT NULL,
	`body` text NOT NULL,
	`full_text` text,
	`variables` text,
	`skip_waiting_state` integer DEFAULT 0 NOT NULL,
	`close_session` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`chat_id` text,
	`platform_message_id` text,
	`is_new_session` integer,
	`last_error` text,
	`job_id` integer,
	`received_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`posted_at` integer,
	FOREIGN KEY (`thread`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_dedup` ON `inbound_messages` (`connector`,`external_id`);--> statement-breakpoint
CREATE INDEX `inbound_thread_status` ON `inbound_messages` (`thread`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `inbound_status` ON `inbound_messages` (`status`);--> statement-breakpoint
CREATE TABLE `skipped_inbound` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`connector` text NOT NULL,
	`external_id` text NOT NULL,
	`sender_id` text,
	`summary` text,
	`code` text NOT NULL,
	`reason` text NOT NULL,
	`received_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skipped_dedup` ON `skipped_inbound` (`connector`,`external_id`);--> statement-breakpoint
CREATE INDEX `skipped_received` ON `skipped_inbound` (`received_at`);--> statement-breakpoint
CREATE TABLE `thread_references` (
	`connector` text NOT NULL,
	`reference` text NOT NULL,
	`thread` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`connector`, `reference`),
	FOREIGN KEY (`thread`) REFERENCES `threads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `thread_references_thread` ON `thread_references` (`thread`);--> statement-breakpoint
CREATE TABLE `threads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`connector` text NOT NULL,
	`thread_key` text NOT NULL,
	`thread_id` text NOT NULL,
	`chat_id` text,
	`mapping_id` text,
	`closed` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `threads_key` ON `threads` (`connector`,`thread_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `threads_thread_id` ON `threads` (`connector`,`thread_id`);--> statement-breakpoint
CREATE INDEX `threads_chat` ON `threads` (`chat_id`);