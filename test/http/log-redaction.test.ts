/**
 * Credentials in query strings never reach the log: a real gateway with a
 * captured log (every line, trace level) is sent an admin token and a proxy
 * key as query parameters; both are refused with 401 and every log line shows
 * the URL with the value replaced by `[redacted]`.
 */
import { describe, expect, it } from 'vitest';
import { PROXY_KEY, PROXY_ORG, proxyGateway, recordingUpstream } from '../support/proxy-upstream.ts';

const ADMIN_TOKEN = 'admin-token-in-a-query-0123456789';
const LIST = `/api/v5/orgs/${PROXY_ORG}/unified_messaging`;

async function gatewayWithLog() {
  const up = await recordingUpstream();
  const lines: string[] = [];
  const tg = await proxyGateway(up.url, {}, lines, { server: { admin_token: ADMIN_TOKEN } });
  return { tg, up, lines };
}

describe('query credentials in the log', () => {
  // Guards against `?token=<admin token>` and `?key=<proxy key>` being written whole into the request log line.
  it('redacts ?token= to the admin API and ?key= to the proxy in every log line', async () => {
    const { tg, up, lines } = await gatewayWithLog();
    const toAdmin = await tg.call('GET', `/admin/api/deliveries?status=dead&token=${ADMIN_TOKEN}`);
    expect(toAdmin.status).toBe(401);
    const toProxy = await tg.call('GET', `${LIST}?key=${PROXY_KEY}&ordering=-created_at`);
    expect(toProxy.status).toBe(401);
    expect(up.seen).toEqual([]);

    const log = lines.join('');
    expect(log).not.toContain(ADMIN_TOKEN);
    expect(log).not.toContain(PROXY_KEY);
    expect(log).toContain('"url":"/admin/api/deliveries?status=dead&token=[redacted]"');
    expect(log).toContain(`"url":"${LIST}?key=[redacted]&ordering=-created_at"`);
  });

  // Guards against `?authorization=Bearer%20<admin token>` (a header's name used as a parameter) being written whole.
  it('redacts ?authorization= and other header-like credential names', async () => {
    const { tg, lines } = await gatewayWithLog();
    const answer = await tg.call('GET', `/admin/api/deliveries?authorization=Bearer%20${ADMIN_TOKEN}&status=dead`);
    expect(answer.status).toBe(401);
    await tg.call('GET', `/admin/api/deliveries?Proxy-Authorization=Basic%20czpz-second&credentials=third-secret`);
    const log = lines.join('');
    expect(log).not.toContain(ADMIN_TOKEN);
    expect(log).not.toMatch(/czpz-second|third-secret/);
    expect(log).toContain('"url":"/admin/api/deliveries?authorization=[redacted]&status=dead"');
    expect(log).toContain('"url":"/admin/api/deliveries?Proxy-Authorization=[redacted]&credentials=[redacted]"');
  });

  // Guards against credential-like names slipping through by case, by percent-encoding or by position in the query.
  it('redacts every credential-like name in any case, and leaves other parameters alone', async () => {
    const { tg, lines } = await gatewayWithLog();
    const secrets = ['s-access-1', 's-apikey-2', 's-secret-3', 's-password-4', 's-sig-5', 's-signature-6', 's-token-7', 's-key-8'];
    const query = `Access_Token=${secrets[0]}&API_KEY=${secrets[1]}&Secret=${secrets[2]}&PassWord=${secrets[3]}&SIG=${secrets[4]}&signature=${secrets[5]}&%74oken=${secrets[6]}&ordering=-created_at&Key=${secrets[7]}`;
    const res = await tg.call('GET', `${LIST}?${query}`);
    expect(res.status).toBe(401);
    const log = lines.join('');
    for (const secret of secrets) expect(log).not.toContain(secret);
    expect(log).toContain(
      `"url":"${LIST}?Access_Token=[redacted]&API_KEY=[redacted]&Secret=[redacted]&PassWord=[redacted]&SIG=[redacted]&signature=[redacted]&%74oken=[redacted]&ordering=-created_at&Key=[redacted]"`,
    );
  });
});
