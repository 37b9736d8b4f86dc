/**
 * `ctx.secrets` (src/bridge/operator-secrets.ts): a value set by an operator
 * is in force only while the settings still hold what they held when it was
 * set, only with the store's encryption key, and a value sealed under another
 * key is passed over with one warning.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { connectorSecrets, entryValueAt, OPERATOR_SECRET_PREFIX, operatorSecretRecord } from '../../src/bridge/operator-secrets.ts';
import { createSealer } from '../../src/bridge/sealer.ts';
import { memoryState } from '../support/memory-state.ts';

const KEY = 'imap.auth.refresh_token';

function setup() {
  const state = memoryState();
  const lines: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  const sealer = createSealer('the store key of this test, long enough');
  return { state, lines, logger, sealer };
}

describe('operator-set connector secrets', () => {
  it('answers the set value while the settings are unchanged since, and the settings again once they change', async () => {
    const { state, logger, sealer } = setup();
    await state.set(OPERATOR_SECRET_PREFIX + KEY, operatorSecretRecord(sealer, 'new-consent', 'old-token'));
    const secrets = connectorSecrets(state.get, sealer, logger);
    expect(await secrets.get(KEY, 'old-token')).toBe('new-consent');
    expect(await secrets.get(KEY, 'a-token-written-into-the-settings-since')).toBeUndefined();
    expect(await secrets.get('imap.auth.client_secret', 'old-token')).toBeUndefined();
    expect(JSON.stringify([...state.values])).not.toContain('new-consent');
  });

  it('a value set over an absent settings key holds while the key stays absent', async () => {
    const { state, logger, sealer } = setup();
    await state.set(OPERATOR_SECRET_PREFIX + 'smtp.auth.client_secret', operatorSecretRecord(sealer, 's3cret', undefined));
    const secrets = connectorSecrets(state.get, sealer, logger);
    expect(await secrets.get('smtp.auth.client_secret', undefined)).toBe('s3cret');
    expect(await secrets.get('smtp.auth.client_secret', '')).toBe('s3cret');
    expect(await secrets.get('smtp.auth.client_secret', 'configured')).toBeUndefined();
  });

  it('without the encryption key nothing is answered; under another key it is passed over with one warning', async () => {
    const { state, lines, logger, sealer } = setup();
    await state.set(OPERATOR_SECRET_PREFIX + KEY, operatorSecretRecord(sealer, 'new-consent', 'old-token'));
    expect(await connectorSecrets(state.get, undefined, logger).get(KEY, 'old-token')).toBeUndefined();
    const other = connectorSecrets(state.get, createSealer('another key entirely, also long'), logger);
    expect(await other.get(KEY, 'old-token')).toBeUndefined();
    expect(await other.get(KEY, 'old-token')).toBeUndefined();
    const warnings = lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
    expect(warnings.map((w) => w.msg)).toEqual([`the value set for ${KEY} with threadgate secrets does not open with store.encryption_key (changed?); using the settings' value`]);
  });

  it('reads a dotted key of a settings entry, strings only', () => {
    const entry = { imap: { auth: { refresh_token: 'r', port: 993 } } };
    expect(entryValueAt(entry, 'imap.auth.refresh_token')).toBe('r');
    expect(entryValueAt(entry, 'imap.auth.port')).toBeUndefined();
    expect(entryValueAt(entry, 'smtp.auth.refresh_token')).toBeUndefined();
  });
});
