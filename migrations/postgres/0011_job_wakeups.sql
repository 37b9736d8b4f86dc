-- Wake-ups of other replicas (src/store/postgres/pg-wakeups.ts): a job that becomes queued (inserted, retried from
-- dead, given back, made due early) notifies `threadgate_jobs` with its kind and lane from the transaction that queued
-- it, so the notification is delivered only on commit. The trigger is deferred to the COMMIT and looks at the row
-- again there: a job taken in the write that queued it (a delivery taken on enqueue) is running by then and wakes
-- nobody. Only sessions that set `threadgate.wakeups` to `on` notify (the store does on each pooled connection unless
-- `store.wakeups` is false): a deployment without listeners pays no notification. PostgreSQL drops duplicates of one
-- (channel, payload) within a transaction: a group commit of N jobs of one lane sends one notification.
CREATE FUNCTION jobs_wakeup_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('threadgate.wakeups', true) = 'on' AND EXISTS (SELECT 1 FROM jobs WHERE id = NEW.id AND status = 'queued') THEN
    -- Cut well under NOTIFY's 8000 bytes (an error here would fail the COMMIT); a cut payload reads as "look everywhere".
    PERFORM pg_notify('threadgate_jobs', left(json_build_array(NEW.kind, NEW.lane)::text, 1900));
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER jobs_wakeup AFTER INSERT OR UPDATE OF status, run_at ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION jobs_wakeup_notify();
-- A lease given back (a replica that stops releases its poller's lease: expires_at 0) notifies `threadgate_leases` with
-- its name, so a replica waiting for it takes it at once, not at its next ask.
CREATE FUNCTION leases_release_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('threadgate.wakeups', true) = 'on' THEN
    PERFORM pg_notify('threadgate_leases', left(NEW.name, 1900));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER leases_release AFTER UPDATE OF expires_at ON leases
  FOR EACH ROW WHEN (NEW.expires_at = 0) EXECUTE FUNCTION leases_release_notify();
