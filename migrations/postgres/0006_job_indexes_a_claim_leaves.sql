-- The claim's index holds queued jobs, the order index unfinished ones (SQLite's 0012_job_indexes_a_claim_leaves):
-- a claim takes a job out of jobs_due and leaves jobs_order alone. Every finished job has its finished_at first.
UPDATE jobs SET finished_at = updated_at WHERE status IN ('done', 'dead') AND finished_at IS NULL;
UPDATE jobs SET finished_at = NULL WHERE status IN ('queued', 'running') AND finished_at IS NOT NULL;
DROP INDEX jobs_due;
DROP INDEX jobs_order;
CREATE INDEX jobs_due ON jobs (kind, run_at) WHERE status = 'queued';
CREATE INDEX jobs_order ON jobs (order_key) WHERE finished_at IS NULL;
