-- Room on each page for the versions a row's updates write (docs/decisions/postgres-deliveries-settle-in-place.md).
-- A job is updated twice after its insert (its claim, its completion), each a new version, as status is indexed: with
-- room on its page the new version stays there instead of going to the table's end, where the inserts write (the
-- claim's statement 17-20 -> 16 us a webhook on the bench). An attempt is closed in place (no indexed column
-- changes) when its page has room.
ALTER TABLE jobs SET (fillfactor = 70);
ALTER TABLE delivery_attempts SET (fillfactor = 80);
