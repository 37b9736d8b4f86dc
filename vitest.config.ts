import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'connectors/**/*.test.ts'],
    pool: 'forks',
    // One Dovecot and one OpenSMTPD for the whole run (test/support/mail-servers.ts).
    globalSetup: ['test/support/mail-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
