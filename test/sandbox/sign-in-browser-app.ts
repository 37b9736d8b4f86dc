/**
 * A tiny web app for the browser test of sign-in, served on a port-0 HTTP
 * server: `/` starts the implicit flow, `/signed-in` reads the hash of the
 * authentication response, checks the state, shows the result and can renew
 * silently — a hidden frame loads /authorize with prompt=none and the
 * sandbox's /callback page as redirect_uri, and the page accepts only
 * messages from the sandbox's origin that start with `svc-auth-callback:`;
 * or sign in through a pop-up whose /callback page posts to its opener.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { CALLBACK_MESSAGE_PREFIX } from '../../src/platform/schemas/sign-in.ts';

export interface BrowserApp {
  origin: string;
  /** The app's own redirect URI (the implicit flow in the main window). */
  redirectUri: string;
}

export interface BrowserAppConfig {
  sandboxUrl: string;
  clientId: string;
  /** The sandbox callback URI (target=parent) registered for this app: silent renewal in a hidden frame. */
  callbackUri: string;
  /** The sandbox callback URI (target=opener) registered for this app: sign-in in a pop-up. */
  popupCallbackUri: string;
}

function script(config: BrowserAppConfig & { redirectUri: string }): string {
  return `
const config = ${JSON.stringify({ ...config, prefix: CALLBACK_MESSAGE_PREFIX })};
const show = (id, value) => { document.getElementById(id).textContent = typeof value === 'string' ? value : JSON.stringify(value); };
function authorizeUrl(redirectUri, extra) {
  const nonce = crypto.randomUUID(), state = crypto.randomUUID();
  sessionStorage.setItem('expected', JSON.stringify({ nonce, state }));
  const params = new URLSearchParams({ scope: 'openid profile', response_type: 'id_token token', client_id: config.clientId,
    redirect_uri: redirectUri, nonce, state, ...extra });
  return config.sandboxUrl + '/authorize?' + params.toString().replace(/\\+/g, '%20');
}
function accept(params) {
  const expected = JSON.parse(sessionStorage.getItem('expected') || '{}');
  if (params.error) return { error: params.error, state_ok: params.state === expected.state };
  const claims = JSON.parse(atob(params.id_token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
  return { state_ok: params.state === expected.state, nonce_ok: claims.nonce === expected.nonce, sub: claims.sub,
    name: claims.name, access_token: params.access_token, token_type: params.token_type, expires_in: params.expires_in };
}
window.signIn = () => { location.href = authorizeUrl(config.redirectUri, {}); };
/** Resolves with the next sign-in result a sandbox /callback page posts to this window. */
function nextCallback(done) {
  return new Promise((resolve) => {
    const onMessage = (event) => {
      if (event.origin !== new URL(config.sandboxUrl).origin || typeof event.data !== 'string' || !event.data.startsWith(config.prefix)) return;
      window.removeEventListener('message', onMessage);
      done();
      const result = accept(Object.fromEntries(new URLSearchParams(event.data.slice(config.prefix.length).replace(/^#/, ''))));
      show('renewed', result);
      resolve(result);
    };
    window.addEventListener('message', onMessage);
  });
}
window.renew = () => {
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  const result = nextCallback(() => frame.remove());
  frame.src = authorizeUrl(config.callbackUri, { prompt: 'none' });
  document.body.appendChild(frame);
  return result;
};
window.signInWithPopup = () => {
  let popup;
  const result = nextCallback(() => popup.close());
  popup = window.open(authorizeUrl(config.popupCallbackUri, {}), 'sign-in', 'width=480,height=640');
  return result;
};
if (location.pathname === '/signed-in') {
  const result = accept(Object.fromEntries(new URLSearchParams(location.hash.slice(1))));
  history.replaceState(null, '', location.pathname);
  show('result', result);
}`;
}

/** Starts the app; `configure` is called once the app's origin is known (to register it with the sandbox). */
export async function startBrowserApp(configure: (app: BrowserApp) => Promise<BrowserAppConfig>): Promise<BrowserApp> {
  let config: (BrowserAppConfig & { redirectUri: string }) | undefined;
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if ((path !== '/' && path !== '/signed-in') || config === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>App</title></head><body>
<button id="sign-in" onclick="signIn()">Sign in</button>
<pre id="result"></pre><pre id="renewed"></pre>
<script>${script(config)}</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = { origin, redirectUri: `${origin}/signed-in` };
  config = { ...(await configure(app)), redirectUri: app.redirectUri };
  return app;
}
