-- The order index lists a key's unfinished jobs in id order (SQLite's jobs_order ends with the rowid, the id, by
-- itself): the order check asks for a key's jobs before a given id, and with the key alone PostgreSQL read every
-- unfinished job of the thread for it (a claim behind a backlog of 64 threads: 130-257 rows for each job
-- looked at, 4,600-10,500 pages a claim; docs/benchmarks.md, "PostgreSQL: the order check in id order").
DROP INDEX jobs_order;
CREATE INDEX jobs_order ON jobs (order_key, id) WHERE finished_at IS NULL;
