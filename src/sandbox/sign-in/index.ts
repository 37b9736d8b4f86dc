/**
 * Sign-in of the sandbox (spec 01, "Sign-in endpoints"), served on the
 * sandbox's own address, which stands in for {auth_url}: /authorize (with its
 * login page), /callback, /token, the OpenID discovery document and JWKS, and
 * the control routes /_sandbox/apps.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { AppRegistry } from './apps.ts';
import { registerAuthorizeRoutes } from './authorize-routes.ts';
import { registerCallbackRoute } from './callback-page.ts';
import { CodeStore } from './codes.ts';
import type { SignInContext } from './context.ts';
import { registerControlAppRoutes } from './control-apps.ts';
import { registerDiscoveryRoutes } from './discovery.ts';
import { SigningKeys } from './keys.ts';
import { LoginSessions } from './login-sessions.ts';
import { registerTokenRoute } from './token-route.ts';

/** Longest form the login page or the token endpoint accepts. */
const FORM_LIMIT_BYTES = 64 * 1024;

export function registerSignIn(app: FastifyInstance, sandbox: SandboxContext): void {
  const now = () => sandbox.state.now();
  const ctx: SignInContext = {
    ...sandbox,
    apps: new AppRegistry(now),
    codes: new CodeStore(now),
    sessions: new LoginSessions(now),
    keys: new SigningKeys(),
  };
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    });
    registerAuthorizeRoutes(scope, ctx);
    registerTokenRoute(scope, ctx);
    registerCallbackRoute(scope, ctx);
    registerDiscoveryRoutes(scope, ctx);
  });
  void app.register(async (scope) => registerControlAppRoutes(scope, ctx), { prefix: '/_sandbox' });
}
