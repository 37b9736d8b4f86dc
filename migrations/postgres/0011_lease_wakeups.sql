-- Wake-ups of other replicas (src/store/postgres/pg-wakeups.ts). Jobs queued are announced by the store after their
-- commit; a lease given back (a replica that stops releases its poller's lease: expires_at 0) notifies
-- `threadgate_leases` with its name from the releasing transaction, so a replica waiting for it takes it at once, not
-- at its next ask. Only sessions that set `threadgate.wakeups` to `on` notify (the store does on each pooled
-- connection unless `store.wakeups` is false).
CREATE FUNCTION leases_release_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('threadgate.wakeups', true) = 'on' THEN
    -- Cut well under NOTIFY's 8000 bytes: an error here would fail the COMMIT.
    PERFORM pg_notify('threadgate_leases', left(NEW.name, 1900));
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER leases_release AFTER UPDATE OF expires_at ON leases
  FOR EACH ROW WHEN (NEW.expires_at = 0) EXECUTE FUNCTION leases_release_notify();
