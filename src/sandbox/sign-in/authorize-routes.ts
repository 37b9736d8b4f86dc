/**
 * GET {auth_url}/authorize and the login form's POST /authorize/login.
 *
 *   prompt=none  : signed in → response; no session → login_required;
 *                  login_hint naming another user than the session's →
 *                  interaction_required (an account must be chosen)
 *   login_hint   : that user is signed in at once (the scripts' shortcut)
 *   prompt=login : the login page, even with a session
 *   otherwise    : signed in → response; else the login page
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../model.ts';
import { parseAuthorizeRequest, trustedTarget, type AuthorizeRequest, type TrustedTarget } from './authorize-request.ts';
import { errorResponseUrl } from './authorize-response.ts';
import { issuerOf, type SignInContext } from './context.ts';
import { asciiDescription, AuthorizeRedirectError, AuthorizeRequestError } from './errors.ts';
import { grantUrl } from './grant.ts';
import { sendPage } from './html.ts';
import { findActiveUser, LOGIN_PATH, loginPage } from './login-page.ts';

export function registerAuthorizeRoutes(app: FastifyInstance, ctx: SignInContext): void {
  app.get('/authorize', async (request, reply) => {
    const rawQuery = queryOf(request.url);
    return answer(reply, new URLSearchParams(rawQuery), async (req) => {
      const user = decide(ctx, request, req);
      if (user === 'login page') return sendPage(reply, 200, loginPage(ctx.state, req.app, rawQuery));
      if (req.loginHint !== undefined && req.prompt !== 'none') ctx.sessions.start(reply, user.id);
      return reply.header('cache-control', 'no-store').redirect(await grantUrl(ctx, req, user, issuerOf(request)), 302);
    });
  });

  app.post(LOGIN_PATH, async (request, reply) => {
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    const rawQuery = form.get('request') ?? '';
    return answer(reply, new URLSearchParams(rawQuery), async (req) => {
      const user = findActiveUser(ctx.state, form.get('user_id') ?? '');
      if (user === undefined) return sendPage(reply, 400, loginPage(ctx.state, req.app, rawQuery, 'Choose a sandbox user.'));
      ctx.sessions.start(reply, user.id);
      // 303: the browser follows with a GET, whatever the app's redirect_uri is.
      return reply.header('cache-control', 'no-store').redirect(await grantUrl(ctx, req, user, issuerOf(request)), 303);
    });
  });

  /**
   * Runs `handle` on a checked request; an untrusted client_id or
   * redirect_uri is answered 400 here, any other problem in the redirect.
   */
  async function answer(reply: FastifyReply, params: URLSearchParams, handle: (req: AuthorizeRequest) => Promise<FastifyReply>) {
    let target: TrustedTarget;
    try {
      target = trustedTarget(params, ctx.apps);
    } catch (err) {
      if (!(err instanceof AuthorizeRequestError)) throw err;
      return reply.status(400).header('cache-control', 'no-store').send({ error: err.error, error_description: asciiDescription(err.message) });
    }
    try {
      return await handle(parseAuthorizeRequest(params, target));
    } catch (err) {
      if (!(err instanceof AuthorizeRedirectError)) throw err;
      return reply.header('cache-control', 'no-store').redirect(errorResponseUrl(target, err.error, err.message), 302);
    }
  }
}

/** The user to answer for, or the login page; throws the redirect errors of prompt=none and login_hint. */
function decide(ctx: SignInContext, request: FastifyRequest, req: AuthorizeRequest): User | 'login page' {
  const session = ctx.sessions.of(request);
  const sessionUser = session === undefined ? undefined : findActiveUser(ctx.state, session.userId);
  const hinted = req.loginHint === undefined ? undefined : findActiveUser(ctx.state, req.loginHint);
  if (req.loginHint !== undefined && hinted === undefined) {
    throw new AuthorizeRedirectError('invalid_request', 'login_hint names no active sandbox user (give a user ID or e-mail address).');
  }
  if (req.prompt === 'none') {
    if (sessionUser === undefined) throw new AuthorizeRedirectError('login_required', 'The user is not signed in and prompt is none.');
    if (hinted !== undefined && hinted.id !== sessionUser.id) {
      throw new AuthorizeRedirectError('interaction_required', 'Another user is signed in than login_hint names; choosing an account needs the login page.');
    }
    return sessionUser;
  }
  if (hinted !== undefined) return hinted;
  if (sessionUser !== undefined && req.prompt !== 'login') return sessionUser;
  return 'login page';
}

/** Everything after the first `?` of the request target (a query may itself contain `?`). */
function queryOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}
