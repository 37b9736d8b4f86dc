-- A kind's queue is read per lane (SQLite's 0015_job_lanes): the due index leads with the kind and the lane. A platform
-- post's lane is its connector: every post or close that may still run (a dead one may be retried) gets it from its
-- payload, before the index is built again.
DROP INDEX jobs_due;
ALTER TABLE jobs ADD COLUMN lane text;
UPDATE jobs SET lane = payload::jsonb ->> 'connector' WHERE kind IN ('platform.post_messages', 'platform.close_session') AND status IN ('queued', 'running', 'dead');
CREATE INDEX jobs_due ON jobs (kind, lane, run_at) WHERE status = 'queued';
