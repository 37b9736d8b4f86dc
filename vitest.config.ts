import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    pool: 'forks',
    // One Dovecot and one OpenSMTPD for the whole run (test/support/mail-servers.ts);
    // one Redmine, started on first use (test/support/redmine.ts).
    globalSetup: ['test/support/mail-global-setup.ts', 'test/support/redmine-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
