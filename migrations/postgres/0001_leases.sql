-- Who runs a one-at-a-time task (a connector's poller) across replicas; SQLite's 0007_leases.
CREATE TABLE leases (
  name text PRIMARY KEY NOT NULL,
  holder text NOT NULL,
  generation bigint NOT NULL,
  expires_at bigint NOT NULL
);
