/**
 * A mailbox login the server refuses, against the run's real Dovecot with a
 * wrong password: the connector's health and its warn line both carry the
 * server's answer (response code and text, as imapflow reads them), not
 * imapflow's bare "Command failed"; neither shows the password.
 */
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.ts';
import { mailServers } from '../../support/mail-servers.ts';
import { until } from '../../support/wait.ts';
import { emailConnector } from './settings.ts';

const WRONG_PASSWORD = 'not-the-password-7f3a';
const DOVECOT_ANSWER = 'AUTHENTICATIONFAILED: Authentication failed.';

describe('a refused IMAP login', () => {
  it('health last_error and the warn line name the server’s AUTHENTICATIONFAILED answer', async () => {
    const support = await mailServers().addUser('refused-login');
    const logLines: string[] = [];
    const tg = await startTestGateway({
      connectors: [emailConnector(support, { reconnect_max_seconds: 1 }, { password: WRONG_PASSWORD })],
      logLines,
    });
    const health = async () => (await tg.call('GET', '/readyz')).body.connectors.mail;
    await until(async () => typeof (await health()).details.last_error === 'string', 10_000, 'a login error');
    const sick = await health();
    expect(sick.ok).toBe(false);
    expect(sick.details.last_error).toBe(`IMAP authentication failed: ${DOVECOT_ANSWER}`);

    const warn = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'mailbox connection failed');
    expect(warn).toMatchObject({
      level: 40,
      connector: 'mail',
      err: {
        message: `IMAP authentication failed: ${DOVECOT_ANSWER}`,
        response_status: 'NO',
        server_response_code: 'AUTHENTICATIONFAILED',
        response_text: 'Authentication failed.',
      },
    });
    expect(warn!.err).not.toHaveProperty('type');
    expect(warn!.err).not.toHaveProperty('stack');
    expect(logLines.join('')).not.toContain(WRONG_PASSWORD);
    expect(JSON.stringify(sick)).not.toContain(WRONG_PASSWORD);
  });
});
