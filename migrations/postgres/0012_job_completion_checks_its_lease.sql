-- A job's completion that finds its lease gone fails as a statement (src/store/job-statements.ts COMPLETE_JOB), not
-- only as a row count the gateway reads afterwards: a completion's COMMIT goes out with its statements
-- (src/store/postgres/pg-group-writer.ts), and a failed statement turns that COMMIT into a rollback. SQLSTATE TGL01.
CREATE FUNCTION threadgate_held(held bigint, expected bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF held < expected THEN
    RAISE EXCEPTION 'a job''s completion found % of its % jobs still held by their run', held, expected USING ERRCODE = 'TGL01';
  END IF;
  RETURN true;
END
$$;
