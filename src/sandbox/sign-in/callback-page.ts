/**
 * GET {auth_url}/callback (spec 01): the landing page of pop-up or frame
 * re-authentication. On load it posts `svc-auth-callback:` + the hash string
 * of the authentication response (as `location.hash` gives it, with its
 * leading `#`) to `window.parent` (target=parent) or `window.opener`
 * (target=opener), addressed to `origin` only — the wildcard * is refused —
 * and then removes the hash from its own address.
 *
 * The callback URI must be an allowed redirect URI of the app: the page
 * checks that its own path and query are those of one of the app's redirect
 * URIs, so `origin` is always one the app registered.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { CALLBACK_MESSAGE_PREFIX, CallbackQuery } from '../../platform/schemas/sign-in.ts';
import { SandboxForbiddenError, SandboxNotFoundError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import type { AppRecord } from './apps.ts';
import type { SignInContext } from './context.ts';
import { escapeHtml, page, scriptJson, sendPage } from './html.ts';

export const CALLBACK_PATH = '/callback';

export function registerCallbackRoute(app: FastifyInstance, ctx: SignInContext): void {
  app.get(CALLBACK_PATH, async (request, reply) => {
    const query = parsePayload(CallbackQuery, request.query);
    const registered = ctx.apps.get(query.client_id);
    if (registered === undefined) throw new SandboxNotFoundError('Unknown client_id: no app is registered with this ID.');
    if (!isRegisteredCallback(registered, request.url)) {
      throw new SandboxForbiddenError('This callback URI is not an allowed redirect URI of the app.');
    }
    const nonce = randomBytes(16).toString('base64');
    const code = `(function () {
  var config = ${scriptJson({ target: query.target, origin: query.origin, prefix: CALLBACK_MESSAGE_PREFIX })};
  var win = config.target === 'parent' ? window.parent : window.opener;
  var message = config.prefix + window.location.hash;
  history.replaceState(null, '', window.location.pathname + window.location.search);
  if (win && win !== window) win.postMessage(message, config.origin);
  else document.getElementById('status').textContent = 'No ' + config.target + ' window to hand the sign-in result to.';
})();`;
    const body = `<p id="status">Handing the sign-in result to ${escapeHtml(query.origin)}…</p>`;
    return sendPage(reply, 200, page('Signing in · platform sandbox', body, { nonce, code }), nonce);
  });
}

/** Whether `/callback?<query>` is, path and query exactly, one of the app's redirect URIs. */
function isRegisteredCallback(app: AppRecord, requestUrl: string): boolean {
  return app.redirectUris.some((uri) => {
    try {
      const url = new URL(uri);
      return `${url.pathname}${url.search}` === requestUrl;
    } catch {
      return false;
    }
  });
}
