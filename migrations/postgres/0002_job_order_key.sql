-- Jobs with the same key run one at a time, in id order, on any replica; SQLite's 0008_job_order_key.
ALTER TABLE jobs ADD order_key text;
CREATE INDEX jobs_order ON jobs (order_key, status);
