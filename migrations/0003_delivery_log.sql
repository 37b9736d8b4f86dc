CREATE TABLE `delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery` integer NOT NULL,
	`job_id` integer,
	`attempt` integer NOT NULL,
	`replay` integer DEFAULT 0 NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`outcome` text NOT NULL,
	`error` text,
	`external_id` text,
	FOREIGN KEY (`delivery`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery` ON `delivery_attempts` (`delivery`);--> statement-breakpoint
CREATE TABLE `inbound_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`inbound` integer NOT NULL,
	`job_id` integer,
	`attempt` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer NOT NULL,
	`outcome` text NOT NULL,
	`status` integer,
	`error` text,
	`chat_id` text,
	FOREIGN KEY (`inbound`) REFERENCES `inbound_messages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `inbound_attempts_inbound` ON `inbound_attempts` (`inbound`);