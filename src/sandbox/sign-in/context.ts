/** What the sign-in routes share: the sandbox's state, plus the apps, codes, sessions and signing key of sign-in. */
import type { FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context.ts';
import type { AppRegistry } from './apps.ts';
import type { CodeStore } from './codes.ts';
import type { SigningKeys } from './keys.ts';
import type { LoginSessions } from './login-sessions.ts';

export interface SignInContext extends SandboxContext {
  apps: AppRegistry;
  codes: CodeStore;
  sessions: LoginSessions;
  keys: SigningKeys;
}

/**
 * The sandbox's identity address ({auth_url}) as the caller reached it: the
 * `iss` of ID tokens and the base of the discovery document. It is taken from
 * each request's Host header, so a sandbox reached under several names
 * (127.0.0.1 from a test, a container name from an app server) is a
 * consistent issuer under each of them.
 */
export function issuerOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
