/**
 * The whole check of a settings file reports every problem of every section
 * and every connector entry in one pass, each once: connector entries are
 * checked by their connectors although the core settings have problems, the
 * rules across sections run on the sections that are usable, an unknown key
 * is one problem at its own path with "did you mean …?", and an unset
 * environment variable is named once, not again as a type error.
 */
import { describe, expect, it } from 'vitest';
import { checkSettingsWithConnectors } from '../../src/config/checked-settings.ts';
import { formatProblem } from '../../src/config/errors.ts';
import { parseSettingsText } from '../../src/config/load.ts';
import { tempDir } from '../support/temp-dir.ts';

const ROOM = '0b8e4f5c-3c1d-4d7e-8f2a-9a1b2c3d4e5f';
const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

async function problemsOf(lines: string[], env: Record<string, string> = {}): Promise<string[]> {
  const dir = tempDir();
  const check = await checkSettingsWithConnectors(`${lines.join('\n')}\n`, { env, cwd: dir, baseDir: dir });
  expect(check.settings === undefined).toBe(check.problems.length > 0);
  return check.problems.map(formatProblem);
}

describe('one pass over the settings and every connector entry', () => {
  it('lists the problems of every section and every connector at once', async () => {
    const problems = await problemsOf([
      'platform:',
      '  url: https://api.platform.example',
      '  tokn: abc',
      'server:',
      '  port: eighty',
      'jobs: { backoff_first: 1h, backoff_max: 1m }',
      'connectors:',
      `  - { name: a, type: webhok, room_id: ${ROOM} }`,
      `  - { name: b, type: webhook, room_id: ${ROOM}, inbound_secrt: x }`,
      `  - { name: c, type: email, room_id: ${ROOM}, adress: support@example.com, imap: { host: h, user: u, password: p }, smtp: { host: h } }`,
    ]);
    expect(problems).toEqual([
      'platform.tokn: unknown key — did you mean `token`?',
      'server.port: Invalid input: expected number, received string',
      'jobs.backoff_first: must not be longer than backoff_max',
      'platform.organization_id: required when platform.url is set',
      'platform.token: required when platform.url is set',
      'server.public_url: required when platform.url is set — the address the platform reaches this gateway at, e.g. https://threadgate.example.com',
      'connectors[0].type: unknown connector type "webhok" — did you mean `webhook`? (bundled: email, jira-service-management, redmine, request-tracker, slack, telegram, webhook, whatsapp, zammad, zendesk; or give module: PATH)',
      'connectors[1].inbound_secrt: unknown key — did you mean `inbound_secret`?',
      'connectors[1].inbound_secret: required (or set allow_unsigned: true for a local demo)',
      'connectors[2].address: expected an e-mail address',
      'connectors[2].adress: unknown key — did you mean `address`?',
    ]);
  });

  it('checks a connector entry whose own gateway keys are bad, and skips only one whose type cannot be read', async () => {
    const problems = await problemsOf([
      'connectors:',
      '  - { name: Bad Name, type: webhook }',
      '  - { name: no-type }',
      '  - just a string',
    ]);
    expect(problems).toEqual([
      'connectors[0].name: expected lower-case letters, digits and dashes',
      'connectors[1].type: required (a string)',
      'connectors[2]: Invalid input: expected object, received string',
      'connectors[0].inbound_secret: required (or set allow_unsigned: true for a local demo)',
    ]);
  });

  it('names an unset environment variable once, in the core settings and in a connector entry', async () => {
    const problems = await problemsOf([
      'server:',
      '  port: ${PORT}',
      'connectors:',
      '  - { name: hooks, type: webhook, inbound_secret: "${HOOKS_SECRET}", outbound_url: "https://partner.example/in", outbound_secret: "${HOOKS_OUT}" }',
    ], { HOOKS_OUT: SECRET });
    expect(problems).toEqual([
      'server.port: environment variable PORT is not set',
      'connectors[0].inbound_secret: environment variable HOOKS_SECRET is not set',
    ]);
  });

  it('reports an unknown key inside a union at its path, and the rule the union kept from running', async () => {
    const problems = await problemsOf([
      'connectors:',
      '  - name: mail',
      '    type: email',
      '    address: support@example.com',
      '    imap: { host: imap.example.com, user: u, password: p }',
      '    smtp: { host: smtp.example.com, user: u, password: p, auth: { type: oauth2, user: u, access_token: t, scpoe: x } }',
    ]);
    expect(problems).toEqual([
      'connectors[0].smtp.auth.scpoe: unknown key — did you mean `scope`?',
      'connectors[0].smtp.auth: give user and password, or auth, not both',
    ]);
  });

  it('lists the known keys when an unknown one is close to none', async () => {
    expect(await problemsOf(['sandbox: { colour: red }'])).toEqual(['sandbox.colour: unknown key (known here: port, keep_state)']);
  });

  it('accepts valid settings and returns them', async () => {
    const dir = tempDir();
    const check = await checkSettingsWithConnectors(`connectors:\n  - { name: hooks, type: webhook, allow_unsigned: true }\n`, { env: {}, cwd: dir, baseDir: dir });
    expect(check.problems).toEqual([]);
    expect(check.settings?.connectors).toEqual([{ name: 'hooks', type: 'webhook', allow_unsigned: true }]);
  });
});

describe('the core settings alone (every command but config check and serve)', () => {
  const problemsOfText = (text: string): string[] => {
    try {
      parseSettingsText(text, {}, 'test.yaml');
    } catch (err) {
      return (err as { problems: { path: string; message: string }[] }).problems.map((p) => `${p.path}: ${p.message}`);
    }
    throw new Error('expected the settings to be refused');
  };

  it('run the rules across sections although another section has problems', () => {
    expect(problemsOfText('platform: { url: "https://p.example" }\nstore: { pool_size: lots }\n')).toEqual([
      'store.pool_size: Invalid input: expected number, received string',
      'platform.organization_id: required when platform.url is set',
      'platform.token: required when platform.url is set',
      'server.public_url: required when platform.url is set — the address the platform reaches this gateway at, e.g. https://threadgate.example.com',
    ]);
  });

  it('run a rule on the keys it reads although others of their section are bad, and not on a bad key', () => {
    expect(problemsOfText('platform: { url: "https://p.example", token_type: Basic, organization_id: 6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10 }\nserver: { public_url: "https://gw.example", port: -1 }\n')).toEqual([
      expect.stringMatching(/^platform\.token_type: /),
      expect.stringMatching(/^server\.port: /),
      'platform.token: required when platform.url is set',
    ]);
    expect(problemsOfText('platform: { url: "not a url" }\n')).toEqual(['platform.url: expected an http(s) URL']);
  });
});
