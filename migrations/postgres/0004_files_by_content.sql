-- Files by content, per connector: the same file kept again (a mail read twice) reuses its row; SQLite's 0010_files_by_content.
CREATE INDEX files_connector_sha256 ON files (connector, sha256);
