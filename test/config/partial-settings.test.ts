/**
 * Settings loaded for a reader that needs only part of them
 * (src/config/partial-settings.ts): an unset `${VAR}` outside what it needs
 * is left unread and listed, never used as a value; inside, it is refused as
 * ever, and so is every problem no unset variable explains.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '../../src/config/errors.ts';
import { loadSettings, requireRead } from '../../src/config/load.ts';
import { tempDir } from '../support/temp-dir.ts';

function load(text: string, needs: readonly string[] | undefined, env: Record<string, string> = {}) {
  const dir = tempDir();
  const path = join(dir, 'tg.yaml');
  writeFileSync(path, text);
  return loadSettings({ path, env, cwd: dir, ...(needs ? { needs } : {}) });
}

const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigInvalidError) return err.problems;
    throw err;
  }
  throw new Error('no problem was raised');
};

describe('settings loaded with needs', () => {
  it('keeps an unset connector secret as its placeholder and lists it as unread', () => {
    const loaded = load('connectors:\n  - { name: desk, type: webhook, inbound_secret: "${DESK_SECRET}" }\n', ['store']);
    expect(loaded.unread).toEqual([{ path: 'connectors[0].inbound_secret', message: 'environment variable DESK_SECRET is not set' }]);
    expect(loaded.settings.connectors[0]).toMatchObject({ name: 'desk', inbound_secret: '${DESK_SECRET}' });
  });

  it('drops a placeholder its schema refuses: the key takes its default', () => {
    const loaded = load('platform:\n  url: ${PLATFORM_URL}\n  token: ${PLATFORM_TOKEN}\n  organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10\n', ['store']);
    expect(loaded.settings.platform.url).toBeUndefined();
    expect(loaded.unread.map((u) => u.path).sort()).toEqual(['platform.token', 'platform.url']);
    const port = load('server:\n  port: ${PORT}\n', ['store']);
    expect(port.settings.server.port).toBe(8080);
    expect(port.unread).toEqual([{ path: 'server.port', message: 'environment variable PORT is not set' }]);
  });

  it('refuses an unset variable the reader needs, and any problem no unset variable explains', () => {
    expect(problemsOf(() => load('store:\n  path: ${STORE_FILE}\n', ['store']))).toEqual([{ path: 'store.path', message: 'environment variable STORE_FILE is not set' }]);
    expect(problemsOf(() => load('jobs:\n  retry_for: forever\nconnectors:\n  - { name: desk, type: webhook, inbound_secret: "${S}" }\n', ['store']))).toEqual([
      { path: 'jobs.retry_for', message: 'expected a duration such as 90s, 15m, 2h or 3d, got "forever"' },
    ]);
  });

  it('without needs refuses every unset variable, as serve does', () => {
    expect(problemsOf(() => load('connectors:\n  - { name: desk, type: webhook, inbound_secret: "${DESK_SECRET}" }\n', undefined))).toEqual([
      { path: 'connectors[0].inbound_secret', message: 'environment variable DESK_SECRET is not set' },
    ]);
  });

  it('requireRead names the unread values a reader turns out to need', () => {
    const loaded = load('platform:\n  signature:\n    payload: ${SIG}\n', ['store']);
    expect(problemsOf(() => requireRead(loaded, ['platform.signature']))).toEqual([{ path: 'platform.signature.payload', message: 'environment variable SIG is not set' }]);
    expect(() => requireRead(loaded, ['store'])).not.toThrow();
  });
});
