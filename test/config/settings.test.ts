import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '../../src/config/errors.ts';
import { loadSettings, parseSettingsText } from '../../src/config/load.ts';
import { tempDir } from '../support/temp-dir.ts';

const ORG = '6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10';
const ROOM = '0b8e4f5c-3c1d-4d7e-8f2a-9a1b2c3d4e5f';
const PUBLIC_URL_REQUIRED = 'required when platform.url is set — the address the platform reaches this gateway at, e.g. https://threadgate.example.com';

function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseSettingsText(text, env, 'test.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigInvalidError);
    return (err as ConfigInvalidError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected the settings to be refused');
}

describe('settings', () => {
  it('runs on defaults without a file: embedded sandbox, port 8080, store under ./data', () => {
    const { settings, file } = loadSettings({ env: {} });
    expect(file).toBeNull();
    expect(settings.platform.url).toBeUndefined();
    expect(settings.platform.token_type).toBe('Token');
    expect(settings.platform.signature).toEqual({ payload: 'timestamp.body', tolerance_seconds: 300 });
    expect(settings.server.port).toBe(8080);
    expect(settings.server.body_limit_bytes).toBe(1024 * 1024);
    expect(settings.store.path).toBe('./data/threadgate.db');
    expect(settings.connectors).toEqual([]);
  });

  it('is deeply frozen after parsing', () => {
    const { settings } = loadSettings({ env: {} });
    expect(Object.isFrozen(settings.server)).toBe(true);
    expect(() => {
      (settings.server as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('reads the file named by THREADGATE_CONFIG and interpolates ${VAR} from the environment', () => {
    const dir = tempDir();
    const file = join(dir, 'threadgate.yaml');
    writeFileSync(
      file,
      [
        'platform:',
        '  url: https://platform.example.test',
        `  organization_id: ${ORG}`,
        '  token: ${PLATFORM_TOKEN}',
        '  token_type: Bearer',
        '  signature: { payload: body, tolerance_seconds: 60 }',
        'server:',
        '  port: ${PORT}',
        '  public_url: ${PUBLIC_URL:-https://gw.example.test}',
        '  admin_token: "$${not-a-var}-and-long-enough"',
        'connectors:',
        `  - { name: support-mail, type: email, room_id: ${ROOM}, imap: { host: 127.0.0.1 } }`,
      ].join('\n'),
    );
    const { settings, baseDir } = loadSettings({ env: { THREADGATE_CONFIG: file, PLATFORM_TOKEN: 's3cret', PORT: '9090' } });
    expect(baseDir).toBe(dir);
    expect(settings.platform.token).toBe('s3cret');
    expect(settings.platform.token_type).toBe('Bearer');
    expect(settings.platform.signature.payload).toBe('body');
    expect(settings.server.port).toBe(9090);
    expect(settings.server.public_url).toBe('https://gw.example.test');
    expect(settings.server.admin_token).toBe('${not-a-var}-and-long-enough');
    expect(settings.connectors[0]).toMatchObject({ name: 'support-mail', type: 'email', imap: { host: '127.0.0.1' } });
  });

  it('takes store.path from THREADGATE_STORE_PATH when the settings name none (relative: from the working folder)', () => {
    const cwd = tempDir();
    expect(loadSettings({ env: { THREADGATE_STORE_PATH: '/data/threadgate.db' } }).settings.store.path).toBe('/data/threadgate.db');
    expect(loadSettings({ env: { THREADGATE_STORE_PATH: 'state/tg.db' }, cwd }).settings.store.path).toBe(join(cwd, 'state/tg.db'));
    const file = join(cwd, 'threadgate.yaml');
    writeFileSync(file, 'store:\n  synchronous: normal\n');
    expect(loadSettings({ path: file, env: { THREADGATE_STORE_PATH: '/data/tg.db' } }).settings.store).toMatchObject({ path: '/data/tg.db', synchronous: 'normal' });
    writeFileSync(file, 'store:\n  path: ./own.db\n');
    expect(loadSettings({ path: file, env: { THREADGATE_STORE_PATH: '/data/tg.db' } }).settings.store.path).toBe('./own.db');
  });

  it('names the path of a value of the wrong type', () => {
    expect(problemsOf('server:\n  port: eighty\n')).toEqual([
      'server.port: Invalid input: expected number, received string',
    ]);
  });

  it('reports every problem at once, each with its path', () => {
    const problems = problemsOf(
      [
        'platform:',
        '  url: not a url',
        '  token_type: Basic',
        'server:',
        '  port: 70000',
        'stroe: {}',
        'connectors:',
        '  - { name: Mail_1, type: email }',
        '  - { name: tickets, type: redmine, room_id: nope }',
        '  - { name: tickets, type: webhook }',
        '  - { type: webhook }',
      ].join('\n'),
    );
    const paths = problems.map((p) => p.split(': ')[0]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'platform.url',
        'platform.token_type',
        'server.port',
        'stroe',
        'connectors[0].name',
        'connectors[1].room_id',
        'connectors[3].name',
      ]),
    );
    expect(problems).toContain('stroe: unknown key — did you mean `store`?');
  });

  it('refuses duplicate connector names, pointing at the second one', () => {
    const problems = problemsOf('connectors:\n  - { name: a, type: webhook }\n  - { name: a, type: webhook }\n');
    expect(problems).toEqual(['connectors[1].name: duplicate connector name "a" (also connectors[0])']);
  });

  it('requires organization_id, token, each room_id and public_url once platform.url is set', () => {
    const problems = problemsOf('platform: { url: "https://p.example.test" }\nconnectors:\n  - { name: a, type: webhook }\n');
    expect(problems).toEqual([
      'platform.organization_id: required when platform.url is set',
      'platform.token: required when platform.url is set',
      'connectors[0].room_id: required when platform.url is set',
      `server.public_url: ${PUBLIC_URL_REQUIRED}`,
    ]);
  });

  it('names an unset environment variable at the path that uses it', () => {
    expect(problemsOf('platform:\n  token: ${MISSING_TOKEN}\n')).toContain(
      'platform.token: environment variable MISSING_TOKEN is not set',
    );
  });

  it('reports YAML syntax errors and a missing file plainly', () => {
    expect(problemsOf('server: [unclosed\n')[0]).toMatch(/^: YAML: /);
    expect(() => loadSettings({ path: '/nonexistent/threadgate.yaml', env: {} })).toThrow(/file not found/);
  });

  describe('server.public_url with a real platform', () => {
    /** Settings with everything a real platform needs but the public_url under test. */
    const withPlatform = (platformUrl: string, publicUrl?: string) =>
      [
        `platform: { url: "${platformUrl}", organization_id: ${ORG}, token: t }`,
        ...(publicUrl === undefined ? [] : [`server: { public_url: "${publicUrl}" }`]),
      ].join('\n');

    // Guards against: with a real platform and no public_url, the gateway registered http://127.0.0.1:8080/webhooks/<name> and agent replies never arrived.
    it('is required, naming the fix', () => {
      expect(problemsOf(withPlatform('https://api.platform.example'))).toEqual([`server.public_url: ${PUBLIC_URL_REQUIRED}`]);
    });

    // Guards against: a public_url the platform cannot reach (loopback, link-local, unspecified) was accepted silently.
    it.each([
      ['http://127.0.0.1:8080', 'a loopback address'],
      ['http://127.8.9.10', 'a loopback address'],
      ['http://localhost:8080', 'a loopback address'],
      ['http://gw.localhost', 'a loopback address'],
      ['http://[::1]:8080', 'a loopback address'],
      ['http://[::ffff:127.0.0.1]', 'a loopback address'],
      ['http://0.0.0.0:8080', 'the unspecified address'],
      ['http://[::]:8080', 'the unspecified address'],
      ['http://169.254.10.20', 'a link-local address'],
      ['http://[fe80::1]:8080', 'a link-local address'],
    ])('refuses %s (%s)', (publicUrl, kind) => {
      expect(problemsOf(withPlatform('https://api.platform.example', publicUrl))).toEqual([
        `server.public_url: ${publicUrl} is on ${kind}, which the platform at https://api.platform.example cannot reach — ` +
          'set the address the platform reaches this gateway at, e.g. https://threadgate.example.com',
      ]);
    });

    it.each(['https://threadgate.example.com', 'http://10.0.0.5:8080', 'http://192.168.1.20', 'http://[2001:db8::5]:8080'])(
      'accepts %s',
      (publicUrl) => {
        expect(parseSettingsText(withPlatform('https://api.platform.example', publicUrl), {}, 'test.yaml').server.public_url).toBe(publicUrl);
      },
    );

    it.each(['http://127.0.0.1:9000', 'http://localhost:9000', 'http://[::1]:9000'])(
      'may be missing or on loopback when the platform itself is on loopback (%s)',
      (platformUrl) => {
        expect(parseSettingsText(withPlatform(platformUrl), {}, 'test.yaml').server.public_url).toBeUndefined();
        expect(parseSettingsText(withPlatform(platformUrl, 'http://127.0.0.1:8080'), {}, 'test.yaml').server.public_url).toBe('http://127.0.0.1:8080');
      },
    );

    it('is not needed with the embedded sandbox', () => {
      expect(parseSettingsText('server: { host: 0.0.0.0 }', {}, 'test.yaml').server.public_url).toBeUndefined();
    });
  });
});
