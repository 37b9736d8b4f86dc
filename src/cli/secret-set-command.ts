/**
 * `threadgate secrets set <connector> <key> [--config PATH]` and `secrets
 * unset <connector> <key>`: replaces a credential of a running connector
 * without editing the settings file or restarting — new OAuth2 consent for a
 * mailbox after the old refresh token was revoked:
 *
 *   printf %s "$NEW_REFRESH_TOKEN" | threadgate secrets set mail imap.auth.refresh_token
 *
 * The value comes from standard input (never from the command line, which
 * other users of the machine can read in the process list), is sealed with
 * `store.encryption_key` and kept in the store (src/bridge/operator-secrets.ts),
 * where every replica reads it at its next use. The key must be one the
 * connector names in its `secretKeys`. It stays in force until the settings
 * file gets a new value at that key, or `unset` removes it.
 */
import { dirname } from 'node:path';
import { createSealer } from '../bridge/sealer.ts';
import { entryValueAt, OPERATOR_SECRET_PREFIX, operatorSecretRecord } from '../bridge/operator-secrets.ts';
import { loadSettings } from '../config/load.ts';
import { assertNoEntryProblems, loadConnectors } from '../connector/registry.ts';
import { configOption, parse } from './args.ts';
import { UsageError } from './errors.ts';
import { openSettingsStore } from './store-access.ts';

export const SET_USAGE = 'usage: printf %s "$VALUE" | threadgate secrets set <connector> <key> [--config PATH]; threadgate secrets unset <connector> <key> [--config PATH]';

const MAX_VALUE_BYTES = 16 * 1024;

/** `input`: where the value is read from (standard input). */
export async function secretSetCommand(verb: 'set' | 'unset', argv: string[], input: AsyncIterable<Buffer | string> = process.stdin): Promise<number> {
  const { values, positionals } = parse(argv, configOption);
  const [connector, key, ...rest] = positionals;
  if (connector === undefined || key === undefined || rest.length > 0) {
    const reason = rest.length > 0 ? `secrets ${verb} takes a connector and a key, got also "${rest.join(' ')}" (the value comes from standard input)` : `secrets ${verb} takes the connector's name and the key, got ${connector === undefined ? 'neither' : 'no key'}`;
    throw new UsageError(reason, { usage: SET_USAGE.replace('; ', '\n       ') });
  }

  const loaded = loadSettings({ path: values.config });
  const entry = loaded.settings.connectors.find((c) => c.name === connector);
  if (entry === undefined) throw new UsageError(`no connector named ${connector} in ${loaded.file ?? 'the settings'}`);
  const connectors = await loadConnectors([entry], loaded.file === null ? process.cwd() : dirname(loaded.file));
  assertNoEntryProblems(loaded.file ?? 'settings', connectors.problems);
  const allowed = connectors.definitions.get(entry.type)?.secretKeys ?? [];
  if (!allowed.includes(key)) {
    throw new UsageError(`connector ${connector} (type ${entry.type}) takes no ${key} at run time; ${allowed.length > 0 ? `it takes: ${allowed.join(', ')}` : 'it takes none (change the settings file and restart)'}`);
  }
  const encryptionKey = loaded.settings.store.encryption_key;
  if (verb === 'set' && encryptionKey === undefined) {
    throw new UsageError('set store.encryption_key (or THREADGATE_STORE_ENCRYPTION_KEY) first, the same for every replica: a credential is kept in the store only sealed');
  }
  const value = verb === 'set' ? await readValue(input) : undefined;

  const store = await openSettingsStore(loaded);
  try {
    if (value === undefined) {
      await store.write((tx) => tx.state.delete(connector, OPERATOR_SECRET_PREFIX + key));
      process.stdout.write(`${connector}: ${key} set with threadgate secrets removed; the settings' value is used from the next attempt\n`);
      return 0;
    }
    const record = operatorSecretRecord(createSealer(encryptionKey!), value, entryValueAt(entry, key));
    await store.write((tx) => tx.state.set(connector, OPERATOR_SECRET_PREFIX + key, record, Date.now()));
    process.stdout.write(`${connector}: ${key} stored sealed; every running replica uses it at its next attempt (within a minute), until the settings file gets a new ${key}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** One line from `input`: a trailing line end dropped; empty, multi-line or oversized input refused. */
async function readValue(input: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += bytes.length;
    if (size > MAX_VALUE_BYTES) throw new UsageError(`the value on standard input is longer than ${MAX_VALUE_BYTES} bytes`);
    chunks.push(bytes);
  }
  const value = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (value.trim() === '') throw new UsageError(`no value on standard input; ${SET_USAGE}`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError('the value on standard input must be one line without control characters');
  return value;
}
