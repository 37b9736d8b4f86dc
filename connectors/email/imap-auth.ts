/**
 * IMAP credentials: a password, or an OAuth2 (XOAUTH2) access token — from
 * the built-in refresh (`provider`, oauth2-tokens.ts), given as is, or
 * printed by `token_command`, which runs before every login so a token
 * refreshed outside the gateway is picked up on the next reconnect.
 */
import { execFile } from 'node:child_process';
import type { EmailConnectorConfig, OAuth2Settings } from './config.ts';
import type { OAuth2Tokens } from './oauth2-tokens.ts';

export class TokenCommandError extends Error {
  readonly code = 'TG_EMAIL_TOKEN_COMMAND';
}

export type ImapAuth = { user: string; pass: string } | { user: string; accessToken: string };

/** `tokens`: the built-in refresh of `imap.auth` with a provider; `renew`: the last login was refused. */
export async function imapAuth(imap: EmailConnectorConfig['imap'], tokens?: OAuth2Tokens, renew = false): Promise<ImapAuth> {
  const auth = imap.auth;
  if (auth === undefined) return { user: imap.user as string, pass: imap.password as string };
  return { user: auth.user, accessToken: await oauth2AccessToken(auth, tokens, renew) };
}

/** The access token of an `auth: { type: oauth2, … }` (IMAP's or SMTP's): refreshed, fixed, or printed by a command. */
export async function oauth2AccessToken(auth: OAuth2Settings, tokens: OAuth2Tokens | undefined, renew = false): Promise<string> {
  if (tokens !== undefined) return tokens.accessToken(renew);
  if (auth.access_token !== undefined) return auth.access_token;
  return runTokenCommand(auth.token_command as string);
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
