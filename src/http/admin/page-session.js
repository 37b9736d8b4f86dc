// Signing in and out (the token checked with one API call before the page
// opens), refreshing every panel at once, and the overview panel: the
// platform's state, the connectors' health and the record counts.
function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  $('app').hidden = true; $('refresh').hidden = true; $('sign-out').hidden = true;
  $('login').hidden = false; $('token').value = ''; $('token').focus();
}
async function signIn(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
  clearBanners();
  try { await api('GET', '/counts'); } catch (err) { showError(err); return; }
  $('login').hidden = true; $('app').hidden = false; $('refresh').hidden = false; $('sign-out').hidden = false;
  await loadAll();
  openFromHash();
}
// A link to one record (`/admin#delivery/42`, `/admin#inbound/7`: what an alert names) opens it once signed in.
function openFromHash() {
  const m = /^#(delivery|inbound)\/(\d+)$/.exec(location.hash);
  if (m) void openRecord(m[1], Number(m[2]));
}
window.addEventListener('hashchange', () => { if (token()) openFromHash(); });
$('login-form').addEventListener('submit', (e) => { e.preventDefault(); void signIn($('token').value.trim()); });
$('sign-out').addEventListener('click', () => { clearBanners(); signOut(); });
$('refresh').addEventListener('click', () => { clearBanners(); void loadAll(); });

async function loadAll() {
  const results = await Promise.allSettled([loadHealth(), loadConnectors(), loadCounts(), loadDeliveries(), loadInbound(), loadSkipped(), loadJobs()]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) showError(failed.reason);
}

// ---- overview ----
async function loadHealth() {
  const health = await api('GET', '/health');
  const p = health.platform;
  $('platform-state').replaceChildren(...(p ? ['platform ', badge(p.up === null ? 'unknown' : p.up ? 'up' : 'down'), ' token ', badge(p.auth === 'refused' ? 'refused' : p.auth === 'ok' ? 'ok' : 'unknown'),
    ' last answer ' + dash(p.last) + ' at ' + time(p.checked_at)] : []));
  $('problems').replaceChildren(...health.problems.map((line) => h('li', {}, line)));
  $('problems').hidden = health.problems.length === 0;
}
const connectorState = (c) => (c.paused ? 'paused' : !c.registered ? 'unregistered' : c.ok ? 'ok' : 'failing');
const failingText = (d) => d.attempts + (d.attempts === 1 ? ' delivery' : ' deliveries in a row') + ' failed since ' + time(d.since) + ': ' + d.last_error + ' — ';
const pausedText = (p) => 'platform posts paused since ' + time(p.since) + ' (the platform refused the token: ' + p.status + '); next check ' + time(p.next_check_at) + ' — ';
async function loadConnectors() {
  const { results } = await api('GET', '/connectors');
  $('connectors').tBodies[0].replaceChildren(...results.map((c) => h('tr', {},
    h('td', {}, c.name), h('td', {}, badge(connectorState(c))),
    h('td', { class: 'wrap muted' }, c.paused ? pausedText(c.paused) : '', c.deliveries?.down ? failingText(c.deliveries) : '', JSON.stringify(c.details)))));
  for (const select of document.querySelectorAll('.connector-select')) {
    const chosen = select.value;
    select.replaceChildren(h('option', { value: '' }, 'any'), ...results.map((c) => h('option', { value: c.name }, c.name)));
    select.value = chosen;
  }
}
async function loadCounts() {
  const counts = await api('GET', '/counts');
  $('counts').replaceChildren(...Object.entries(counts).map(([group, byStatus]) => h('div', { class: 'card' },
    h('h3', {}, group), h('dl', {}, Object.entries(byStatus).flatMap(([s, n]) => [h('dt', {}, s), h('dd', {}, n)])))));
}
