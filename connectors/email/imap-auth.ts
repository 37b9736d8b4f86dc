/**
 * IMAP credentials: a password, or an OAuth2 (XOAUTH2) access token given
 * as is or printed by `token_command`, which runs before every login so a
 * token refreshed outside the gateway is picked up on the next reconnect.
 */
import { execFile } from 'node:child_process';
import type { EmailConnectorConfig } from './config.ts';

export class TokenCommandError extends Error {
  readonly code = 'TG_EMAIL_TOKEN_COMMAND';
}

export type ImapAuth = { user: string; pass: string } | { user: string; accessToken: string };

export async function imapAuth(imap: EmailConnectorConfig['imap']): Promise<ImapAuth> {
  const auth = imap.auth;
  if (auth === undefined) return { user: imap.user as string, pass: imap.password as string };
  if (auth.access_token !== undefined) return { user: auth.user, accessToken: auth.access_token };
  return { user: auth.user, accessToken: await runTokenCommand(auth.token_command as string) };
}

function runTokenCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { timeout: 30_000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      const token = String(stdout).trim();
      if (err) return reject(new TokenCommandError(`token_command failed: ${err.message.split('\n')[0]}`));
      if (token === '') return reject(new TokenCommandError('token_command printed no token'));
      resolve(token);
    });
  });
}
