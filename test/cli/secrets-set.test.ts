/**
 * `threadgate secrets set|unset` refusing what it cannot do, each with exit 2
 * and a message naming the problem: a key the connector does not take at run
 * time, a store without an encryption key, no value on standard input. And
 * `unset` removing a value set before.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openSettingsStore } from '../../src/cli/store-access.ts';
import { loadSettings } from '../../src/config/load.ts';
import { runCliAsync } from '../support/cli.ts';
import { RECORDER_MODULE } from '../support/gateway.ts';
import { tempDir } from '../support/temp-dir.ts';

const auth = { type: 'oauth2', provider: 'google', user: 'support@example.com', client_id: 'id', client_secret: 'secret', refresh_token: 'configured-token' };

function settingsFile(store: Record<string, unknown>): string {
  const dir = tempDir();
  const file = join(dir, 'threadgate.yaml');
  writeFileSync(file, stringify({
    store: { path: 'gateway.db', ...store },
    connectors: [
      { name: 'mail', type: 'email', address: 'support@example.com', imap: { host: '127.0.0.1', auth }, smtp: { host: '127.0.0.1', auth: 'imap' } },
      { name: 'desk', type: 'recorder', module: RECORDER_MODULE },
    ],
  }));
  return file;
}

const KEY = { encryption_key: 'an encryption key for the store of this test' };

describe('threadgate secrets set and unset', () => {
  it('refuses a key the connector does not take at run time, naming the ones it takes', async () => {
    const file = settingsFile(KEY);
    const r = await runCliAsync(['secrets', 'set', 'mail', 'imap.host', '--config', file], { input: 'x' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('connector mail (type email) takes no imap.host at run time; it takes: imap.auth.refresh_token, imap.auth.client_secret, smtp.auth.refresh_token, smtp.auth.client_secret');
    const none = await runCliAsync(['secrets', 'set', 'desk', 'token', '--config', file], { input: 'x' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('it takes none');
    const unknown = await runCliAsync(['secrets', 'set', 'nobody', 'token', '--config', file], { input: 'x' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('no connector named nobody');
  });

  it('refuses without store.encryption_key, and without a value on standard input', async () => {
    const plain = await runCliAsync(['secrets', 'set', 'mail', 'imap.auth.refresh_token', '--config', settingsFile({})], { input: 'new-token' });
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain('set store.encryption_key (or THREADGATE_STORE_ENCRYPTION_KEY) first');
    const file = settingsFile(KEY);
    const empty = await runCliAsync(['secrets', 'set', 'mail', 'imap.auth.refresh_token', '--config', file], { input: '\n' });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('no value on standard input');
    const twoLines = await runCliAsync(['secrets', 'set', 'mail', 'imap.auth.refresh_token', '--config', file], { input: 'a\nb\n' });
    expect(twoLines.status).toBe(2);
    expect(twoLines.stderr).toContain('one line without control characters');
  });

  it('set stores the value sealed, tied to the settings in force; unset removes it', async () => {
    const file = settingsFile(KEY);
    const set = await runCliAsync(['secrets', 'set', 'mail', 'imap.auth.refresh_token', '--config', file], { input: 'operator-token\n' });
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    const read = async () => {
      const store = await openSettingsStore(loadSettings({ path: file }));
      try {
        return await store.read.state.get('mail', 'operator-secret:imap.auth.refresh_token');
      } finally {
        await store.close();
      }
    };
    const record = (await read()) as { sealed: string; over: string; set_at: string };
    expect(record.sealed).toMatch(/^v1\./);
    expect(JSON.stringify(record)).not.toContain('operator-token');
    expect(record.over).toMatch(/^[0-9a-f]{32}$/);

    const unset = await runCliAsync(['secrets', 'unset', 'mail', 'imap.auth.refresh_token', '--config', file]);
    expect(unset.status).toBe(0);
    expect(unset.stdout).toContain("mail: imap.auth.refresh_token set with threadgate secrets removed");
    expect(await read()).toBeUndefined();
  });
});
