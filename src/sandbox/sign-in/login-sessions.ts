/**
 * Sign-in sessions of the sandbox's identity address: who is signed in in a
 * browser, kept in an HttpOnly cookie. A session is what lets prompt=none
 * (silent renewal in a hidden frame) succeed without showing the login page.
 *
 * The cookie is SameSite=Lax and has no Secure flag, because the sandbox is
 * served over plain http; a hidden frame therefore sees it only when the app
 * is same-site with the sandbox (e.g. both on 127.0.0.1, any ports).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'sandbox_sign_in';
/** How long a session lasts without use (sandbox clock). */
export const SESSION_LIFETIME_MS = 12 * 3600 * 1000;

export interface LoginSession {
  id: string;
  userId: string;
  expiresAt: number;
}

export class LoginSessions {
  private readonly sessions = new Map<string, LoginSession>();

  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  /** The signed-in session of the request's cookie, if it is still valid. */
  of(request: FastifyRequest): LoginSession | undefined {
    const id = cookieValue(request.headers.cookie, SESSION_COOKIE);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(session.id);
      return undefined;
    }
    return session;
  }

  /** Starts a session for the user and sets its cookie on the reply. */
  start(reply: FastifyReply, userId: string): LoginSession {
    const session = { id: randomBytes(24).toString('base64url'), userId, expiresAt: this.now() + SESSION_LIFETIME_MS };
    this.sessions.set(session.id, session);
    void reply.header('set-cookie', `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax`);
    return session;
  }

  /** Ends every session (the control API's "sign everybody out"). */
  clear(): number {
    const count = this.sessions.size;
    this.sessions.clear();
    return count;
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
