/**
 * Authorization codes of the code flow: single use, bound to the app, the
 * redirect_uri and the signed-in user, valid for a short time on the sandbox
 * clock. A code used twice is refused (invalid_grant), as RFC 6749 §4.1.2
 * requires. Codes never exchanged are dropped once expired, at the next issue.
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

  /** A new code; codes that expired without an exchange are dropped first, so the store stays small. */
  issue(grant: CodeGrant): string {
    const now = this.now();
    for (const [code, stored] of this.codes) {
      if (stored.expiresAt <= now) this.codes.delete(code);
    }
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, { ...grant, expiresAt: now + CODE_LIFETIME_MS });
    return code;
  }

  /** How many codes are stored (issued, not exchanged, not yet swept). */
  get size(): number {
    return this.codes.size;
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
