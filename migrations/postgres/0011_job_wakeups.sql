-- Wake-ups of other replicas (src/store/postgres/pg-wakeups.ts): a job that becomes queued (inserted, retried from
-- dead, given back, made due early) notifies `threadgate_jobs` with its kind and lane, in the transaction that queues
-- it, so the notification is delivered only on commit. Only sessions that set `threadgate.wakeups` to `on` notify
-- (the store does on each pooled connection unless `store.wakeups` is false): a deployment without listeners pays
-- nothing. PostgreSQL drops duplicates of one (channel, payload) within a transaction: a group commit of N jobs of one
-- lane sends one notification.
CREATE FUNCTION jobs_wakeup_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('threadgate.wakeups', true) = 'on' THEN
    PERFORM pg_notify('threadgate_jobs', json_build_array(NEW.kind, NEW.lane)::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER jobs_wakeup AFTER INSERT OR UPDATE OF status, run_at ON jobs
  FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION jobs_wakeup_notify();
