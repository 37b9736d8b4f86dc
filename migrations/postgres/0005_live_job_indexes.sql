-- The claim's and the order check's indexes hold live jobs only (SQLite's 0011_live_job_indexes); jobs_status
-- gains the kind, so counting jobs by kind and status reads that index alone.
DROP INDEX jobs_due;
DROP INDEX jobs_status;
DROP INDEX jobs_order;
CREATE INDEX jobs_due ON jobs (kind, status, run_at) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_status ON jobs (status, kind);
CREATE INDEX jobs_order ON jobs (order_key, status) WHERE status IN ('queued', 'running');
