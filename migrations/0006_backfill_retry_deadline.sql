-- Jobs still waiting or running when the retry budget became a duration (0005) were queued with the old
-- count (max_attempts 8 or 25, no deadline): give them the new default budget, 3 days from when they were
-- queued, with the safety cap, so an upgrade in the middle of an outage does not dead-letter them after minutes.
UPDATE `jobs` SET `retry_for_ms` = 259200000, `give_up_at` = `created_at` + 259200000,
  `max_attempts` = max(`max_attempts`, 1000)
WHERE `give_up_at` IS NULL AND `status` IN ('queued', 'running');
