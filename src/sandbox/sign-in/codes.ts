/**
 * Authorization codes of the code flow: single use, bound to the app, the
 * redirect_uri and the signed-in user, valid for a short time on the sandbox
 * clock. A code used twice is refused (invalid_grant), as RFC 6749 §4.1.2
 * requires.
 */
import { randomBytes } from 'node:crypto';

/** How long a code may wait for its exchange. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;

export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  userId: string;
  nonce: string;
  scopes: string[];
}

interface StoredCode extends CodeGrant {
  expiresAt: number;
}

export class CodeStore {
  private readonly codes = new Map<string, StoredCode>();

  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  issue(grant: CodeGrant): string {
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { ...grant, expiresAt: this.now() + CODE_LIFETIME_MS });
    return code;
  }

  /** The grant of a valid code, consumed; undefined for unknown, used or expired codes. */
  redeem(code: string): CodeGrant | undefined {
    const stored = this.codes.get(code);
    if (stored === undefined) return undefined;
    this.codes.delete(code);
    if (stored.expiresAt <= this.now()) return undefined;
    const { expiresAt: _expiresAt, ...grant } = stored;
    return grant;
  }
}
