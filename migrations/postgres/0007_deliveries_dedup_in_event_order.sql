-- The dedup index leads with the event's own time (SQLite's 0014_deliveries_dedup_in_event_order): keyed by the
-- platform's random ids alone, it took a page of its own for every webhook stored. Deliveries stored before it
-- get the time their body says; one whose body was cut at the stored-body cap (not JSON any more) gets ''. The
-- helper lives in the schema the migrations create tables in (no TEMP privilege needed) and goes at the end.
CREATE FUNCTION threadgate_event_at_0007(event_type text, body text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN coalesce(CASE event_type
    WHEN 'message_created' THEN body::jsonb #>> '{message,created_at}'
    WHEN 'reply_suggestion_created' THEN body::jsonb #>> '{reply_suggestion,created_at}' END, '');
EXCEPTION WHEN invalid_text_representation THEN
  RETURN '';
END $$;
DROP INDEX deliveries_dedup;
ALTER TABLE deliveries ADD COLUMN event_at text;
UPDATE deliveries SET event_at = threadgate_event_at_0007(event_type, body) WHERE dedup_key IS NOT NULL;
CREATE UNIQUE INDEX deliveries_dedup ON deliveries (connector, event_at, dedup_key) WHERE dedup_key IS NOT NULL AND duplicate_of IS NULL;
DROP FUNCTION threadgate_event_at_0007(text, text);
