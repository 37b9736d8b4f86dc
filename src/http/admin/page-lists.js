// The log's lists: deliveries, inbound messages, skipped messages (each
// with its filter form and an "older" cursor) and the dead jobs; a
// delivery's or inbound message's row opens it in the detail panel.
function statusBoxes(fieldset, statuses) {
  for (const s of statuses) fieldset.append(h('label', {}, h('input', { type: 'checkbox', name: 'status', value: s }), ' ' + s));
}
statusBoxes($('delivery-status'), DELIVERY_STATUSES);
statusBoxes($('inbound-status'), INBOUND_STATUSES);

/** A form's connector and since, the filters lists and bulk retries share. */
function filterOf(form) {
  const f = {};
  if (form.elements.connector.value) f.connector = form.elements.connector.value;
  if (form.elements.since.value.trim()) f.since = form.elements.since.value.trim();
  return f;
}
function queryOf(form, before) {
  const q = new URLSearchParams(filterOf(form));
  const statuses = [...form.querySelectorAll('input[name=status]:checked')].map((i) => i.value);
  if (statuses.length) q.set('status', statuses.join(','));
  if (before) q.set('before', String(before));
  const s = q.toString();
  return s ? '?' + s : '';
}

const cursors = { deliveries: null, inbound: null, skipped: null };
let selected = null; // { kind, id }

function rowFor(kind, id, cells) {
  const open = h('button', { type: 'button', class: 'link', onclick: () => void openRecord(kind, id), 'aria-label': `open ${kind === 'delivery' ? 'delivery' : 'inbound message'} ${id}` }, '#' + id);
  const tr = h('tr', { 'data-id': String(id) }, h('td', { class: 'num' }, open), cells);
  if (selected && selected.kind === kind && selected.id === id) tr.className = 'selected';
  return tr;
}

/**
 * One page of a list in its table — after the rows shown for "older", else in
 * their place, with `empty` said when nothing matches — and its cursor and
 * "older" button.
 */
function showPage(list, cursor, page, rows, more, empty) {
  const table = $(list + '-list');
  const body = table.tBodies[0];
  if (more) body.append(...rows); else body.replaceChildren(...rows);
  if (!more && rows.length === 0) body.append(h('tr', {}, h('td', { colSpan: table.tHead.rows[0].cells.length, class: 'muted' }, empty)));
  cursors[cursor] = page.next_before;
  $(list + '-more').hidden = page.next_before === null;
}

async function loadDeliveries(more) {
  const page = await api('GET', '/deliveries' + queryOf($('delivery-filter'), more ? cursors.deliveries : null));
  const rows = page.results.map((d) => rowFor('delivery', d.id, [
    h('td', {}, time(d.received_at)), h('td', {}, d.connector), h('td', {}, dash(d.event_type)), h('td', { class: 'status' }, badge(d.status)),
    h('td', { class: 'num' }, d.attempts), h('td', { class: 'wrap' }, dash(d.error || d.external_id)),
  ]));
  showPage('delivery', 'deliveries', page, rows, more, 'No deliveries match.');
}

async function loadInbound(more) {
  const page = await api('GET', '/inbound' + queryOf($('inbound-filter'), more ? cursors.inbound : null));
  const rows = page.results.map((m) => rowFor('inbound', m.id, [
    h('td', {}, time(m.received_at)), h('td', {}, m.connector), h('td', {}, m.kind), h('td', { class: 'status' }, badge(m.status)),
    h('td', { class: 'num' }, m.attempts), h('td', { class: 'wrap' }, m.thread_id), h('td', { class: 'wrap' }, dash(m.last_error)),
  ]));
  showPage('inbound', 'inbound', page, rows, more, 'No inbound messages match.');
}

async function loadSkipped(more) {
  const form = $('skipped-filter');
  const q = new URLSearchParams(filterOf(form));
  if (form.elements.code.value.trim()) q.set('code', form.elements.code.value.trim());
  if (more && cursors.skipped) q.set('before', String(cursors.skipped));
  const page = await api('GET', '/skipped' + (q.toString() ? '?' + q : ''));
  const rows = page.results.map((r) => h('tr', { 'data-id': String(r.id) },
    h('td', { class: 'num' }, '#' + r.id), h('td', {}, time(r.received_at)), h('td', {}, r.connector), h('td', {}, r.code),
    h('td', { class: 'wrap' }, r.reason), h('td', { class: 'wrap' }, dash(r.summary)), h('td', { class: 'wrap' }, dash(r.sender_id))));
  showPage('skipped', 'skipped', page, rows, more, 'No skipped messages match.');
}

async function loadJobs() {
  const page = await api('GET', '/jobs?status=dead');
  const rows = page.results.map((j) => h('tr', {},
    h('td', { class: 'num' }, j.id), h('td', {}, j.kind), h('td', { class: 'num' }, j.attempts + '/' + j.max_attempts),
    h('td', { class: 'wrap' }, dash(j.last_error)), h('td', {}, time(j.updated_at)),
    h('td', {}, h('button', { type: 'button', onclick: () => void retryJob(j) }, 'Retry'))));
  $('job-list').tBodies[0].replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colSpan: 6, class: 'muted' }, 'No dead jobs.'))]));
}

const run = (fn) => (e) => { e.preventDefault(); clearBanners(); fn().catch(showError); };
$('delivery-filter').addEventListener('submit', run(() => loadDeliveries(false)));
$('inbound-filter').addEventListener('submit', run(() => loadInbound(false)));
$('delivery-more').addEventListener('click', run(() => loadDeliveries(true)));
$('inbound-more').addEventListener('click', run(() => loadInbound(true)));
$('skipped-filter').addEventListener('submit', run(() => loadSkipped(false)));
$('skipped-more').addEventListener('click', run(() => loadSkipped(true)));
