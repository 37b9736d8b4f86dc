-- The dedup index leads with the event's own time (the message's or the reply suggestion's created_at, as sent):
-- keyed by the platform's random ids alone, it took a page of its own for every webhook stored. Deliveries
-- stored before it get the time their body says; one whose body was cut at the stored-body cap gets ''.
DROP INDEX `deliveries_dedup`;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `event_at` text;--> statement-breakpoint
UPDATE `deliveries` SET `event_at` = coalesce(CASE WHEN json_valid(`body`) THEN CASE `event_type`
    WHEN 'message_created' THEN json_extract(`body`, '$.message.created_at')
    WHEN 'reply_suggestion_created' THEN json_extract(`body`, '$.reply_suggestion.created_at') END END, '')
  WHERE `dedup_key` IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_dedup` ON `deliveries` (`connector`,`event_at`,`dedup_key`) WHERE dedup_key is not null and duplicate_of is null;
