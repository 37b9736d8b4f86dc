// The admin page's script, first piece: what the other pieces build on —
// the constants, `$` and the element builder `h` (text is never parsed as
// HTML), the admin API client (the token from session storage, sent as a
// bearer token; a 401 signs out) and how answers are shown: the error and
// notice banners and the confirmation dialog. The pieces share one
// strict-mode closure (page.ts wraps them in order), so a later piece uses
// these names directly.
const API = location.pathname.replace(/\/+$/, '') + '/api';
const TOKEN_KEY = 'threadgate.adminToken';
const DELIVERY_STATUSES = ['accepted', 'duplicate', 'rejected', 'delivered', 'failed', 'dead'];
const INBOUND_STATUSES = ['pending', 'posted', 'dead'];
const TONE = { ok: 'ok', failing: 'bad', paused: 'bad', unregistered: 'warn', up: 'ok', down: 'bad', refused: 'bad', unknown: 'warn', delivered: 'ok', skipped: 'ok', posted: 'ok', done: 'ok', failed: 'warn', pending: 'warn', queued: 'warn', running: 'warn', accepted: 'warn', dead: 'bad', rejected: 'bad' };
const WATCH_MS = 15000;
const WATCH_EVERY_MS = 400;
const $ = (id) => document.getElementById(id);

/** An element with properties, listeners (onclick…) and children (text is never parsed as HTML). */
function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k in el) el[k] = v;
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) el.append(c instanceof Node ? c : String(c ?? ''));
  return el;
}
const badge = (status) => h('span', { class: 'badge ' + (TONE[status] || '') }, status);
const time = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '–');
const dash = (v) => (v === null || v === undefined || v === '' ? '–' : String(v));

class ApiError extends Error {
  constructor(status, body) { super(body.message); this.status = status; this.body = body; }
}

const token = () => sessionStorage.getItem(TOKEN_KEY) || '';

async function api(method, path, body) {
  const headers = { authorization: 'Bearer ' + token() };
  const init = { method, headers };
  if (body !== undefined) { headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
  let res;
  try { res = await fetch(API + path, init); } catch { throw new ApiError(0, { code: 'TG_UNREACHABLE', message: 'the gateway did not answer' }); }
  const text = await res.text();
  let data;
  try { data = text ? JSON.parse(text) : undefined; } catch { data = undefined; }
  if (res.ok) return data;
  const err = new ApiError(res.status, data && typeof data.message === 'string'
    ? { code: String(data.code || 'HTTP_' + res.status), message: data.message, errors: Array.isArray(data.errors) ? data.errors : undefined }
    : { code: 'HTTP_' + res.status, message: res.statusText || 'the request failed' });
  if (res.status === 401) signOut();
  throw err;
}

/** The API's JSON message (code, message, each field); never a stack. */
function showError(err) {
  const body = err instanceof ApiError ? err.body : { code: 'TG_PAGE', message: String((err && err.message) || err) };
  $('error').replaceChildren(h('strong', {}, body.code + ': '), body.message);
  if (body.errors && body.errors.length > 1) $('error').append(h('ul', {}, body.errors.map((e) => h('li', {}, (e.path ? e.path + ': ' : '') + e.message))));
  $('error').hidden = false;
}
function notice(text) { $('notice').textContent = text; $('notice').hidden = false; }
function clearBanners() { $('error').hidden = true; $('notice').hidden = true; }
window.addEventListener('error', (e) => showError(e.error || e.message));
window.addEventListener('unhandledrejection', (e) => showError(e.reason));

function confirmAction(text, label) {
  const dialog = $('confirm');
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = label;
  return new Promise((resolve) => {
    const done = (ok) => () => { dialog.close(); resolve(ok); };
    $('confirm-ok').onclick = done(true);
    $('confirm-cancel').onclick = done(false);
    dialog.oncancel = () => resolve(false);
    dialog.showModal();
  });
}
