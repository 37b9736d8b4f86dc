import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    pool: 'forks',
    // One Dovecot and one OpenSMTPD for the whole run (test/support/mail-servers.ts);
    // one Redmine, one Request Tracker and one PostgreSQL cluster, each started on first use
    // (test/support/redmine.ts, request-tracker.ts, postgres.ts).
    globalSetup: ['test/support/mail-global-setup.ts', 'test/support/redmine-global-setup.ts', 'test/support/request-tracker-global-setup.ts', 'test/support/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
