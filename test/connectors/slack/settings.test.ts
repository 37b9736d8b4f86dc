/**
 * The Slack connector's settings (config.ts): the documented entry parses
 * with its defaults; a channel may be one id or a list; every bad value is
 * refused naming its key (a channel name instead of an id, a user token, the
 * verification token for the signing secret, an api_url with credentials,
 * an unknown key), and no problem repeats the value it refuses.
 */
import { describe, expect, it } from 'vitest';
import { SlackConnectorConfig } from '../../../connectors/slack/config.ts';

const good = { bot_token: 'xoxb-1234-5678-abcdefABCDEF', signing_secret: '8f742231b10e8888abcd99yyyzzz85a5', channel: 'C0123456789' };
const problems = (settings: Record<string, unknown>) => {
  const parsed = SlackConnectorConfig.safeParse(settings);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('Slack connector settings', () => {
  it('parses the documented entry, with its defaults; one channel or a list', () => {
    expect(SlackConnectorConfig.parse(good)).toEqual({
      ...good,
      channel: ['C0123456789'],
      api_url: 'https://slack.com/api',
      agent_names: true,
      catch_up_seconds: 300,
      catch_up_hours: 72,
      timeout_ms: 10_000,
      attachments: { keep: true, max_file_bytes: 10 * 1024 * 1024, max_message_bytes: 25 * 1024 * 1024 },
    });
    expect(SlackConnectorConfig.parse({ ...good, channel: ['C0123456789', 'G0987654321', 'C0123456789'], api_url: 'http://127.0.0.1:9/api/' })).toMatchObject({
      channel: ['C0123456789', 'G0987654321'],
      api_url: 'http://127.0.0.1:9/api',
    });
  });

  it('refuses each bad value naming its key, never repeating a secret', () => {
    const userToken = 'xoxp-1234-5678-secretvalue';
    const found = [
      ...problems({ ...good, channel: '#support' }),
      ...problems({ ...good, channel: [] }),
      ...problems({ ...good, bot_token: userToken }),
      ...problems({ ...good, signing_secret: 'short' }),
      ...problems({ ...good, api_url: 'https://user:pw@slack.example/api' }),
      ...problems({ ...good, attachments: { max_file_bytes: 0 } }),
      ...problems({ ...good, chanel: 'C0123456789' }),
    ];
    expect(found.map((p) => p.split(':')[0])).toEqual(['channel.0', 'channel', 'bot_token', 'signing_secret', 'api_url', 'attachments.max_file_bytes', '']);
    expect(found[0]).toMatch(/channel id .* not its name/);
    expect(found[2]).toMatch(/xoxb-/);
    expect(found.at(-1)).toMatch(/chanel/);
    expect(found.join('\n')).not.toContain(userToken);
    expect(problems({ bot_token: good.bot_token })).toEqual(expect.arrayContaining([expect.stringMatching(/^signing_secret: /), expect.stringMatching(/^channel: /)]));
  });
});
