// One record in the detail panel (fields, attempts, headers, body) and what
// changes the log, each after a confirmation: replay a delivery, retry an
// inbound message (then watch the record until its new attempt ends),
// retry every dead one a filter matches, retry a dead job. Last piece: it
// ends by opening the page, signed in when the tab still has the token.
const fields = (pairs) => h('dl', { class: 'fields' }, pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v instanceof Node ? v : dash(v))]));
const table = (head, rows) => rows.length
  ? h('table', {}, h('thead', {}, h('tr', {}, head.map((c) => h('th', {}, c)))), h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', { class: 'wrap' }, c instanceof Node ? c : dash(c)))))))
  : h('p', { class: 'muted' }, 'none');
const pretty = (body) => h('pre', {}, typeof body === 'string' ? body : JSON.stringify(body, null, 2));

// What the other side reported of what was sent (read, at its time; a failure with its reason).
const receiptText = (receipt) => receipt && `${receipt.status} ${time(receipt.at)}${receipt.reason ? ` — ${receipt.reason}` : ''}`;

async function openRecord(kind, id) {
  clearBanners();
  selected = { kind, id };
  for (const tr of document.querySelectorAll('tr.selected')) tr.className = '';
  const list = kind === 'delivery' ? 'delivery-list' : 'inbound-list';
  const tr = $(list).querySelector(`tr[data-id="${id}"]`);
  if (tr) tr.className = 'selected';
  try { renderDetail(kind, await api('GET', (kind === 'delivery' ? '/deliveries/' : '/inbound/') + id)); } catch (err) { showError(err); }
}

function renderDetail(kind, r) {
  const title = kind === 'delivery' ? `Delivery #${r.id}` : `Inbound message #${r.id}`;
  const action = kind === 'delivery'
    ? h('button', { type: 'button', class: 'primary', id: 'replay', disabled: r.status === 'rejected', onclick: () => void replay(r) }, 'Replay')
    : h('button', { type: 'button', class: 'primary', id: 'retry', disabled: r.status !== 'dead', onclick: () => void retryInbound(r) }, 'Retry');
  const attempts = kind === 'delivery'
    ? table(['#', 'job', 'replay', 'started', 'ended', 'outcome', 'error / external id'],
      r.attempts.map((a) => [a.attempt, a.job_id, a.replay ? 'yes' : 'no', time(a.started_at), time(a.ended_at), badge(a.outcome), a.error || a.external_id]))
    : table(['#', 'job', 'started', 'ended', 'outcome', 'HTTP', 'error'],
      r.attempts.map((a) => [a.attempt, a.job_id, time(a.started_at), time(a.ended_at), badge(a.outcome), a.status, a.error]));
  const info = kind === 'delivery'
    ? fields([['connector', r.connector], ['event', r.event_type], ['thread', r.thread_id], ['chat', r.chat_id], ['verification', r.verification],
      ['error', r.error], ['external id', r.external_id], ['receipt', receiptText(r.receipt)], ['job', r.job_id], ['received', time(r.received_at)],
      ['updated', time(r.updated_at)], ['duplicate of', r.duplicate_of]])
    : fields([['connector', r.connector], ['kind', r.kind], ['external id', r.external_id], ['thread key', r.thread_key], ['thread', r.thread_id],
      ['sender', r.sender_name ? `${r.sender_name} <${r.sender_id}>` : r.sender_id], ['chat', r.chat_id], ['error', r.last_error], ['received', time(r.received_at)]]);
  $('detail').replaceChildren(...[
    h('h2', {}, title, h('span', { id: 'detail-status' }, badge(r.status)), h('span', { class: 'muted', id: 'detail-attempts' }, `${r.attempts.length} attempt${r.attempts.length === 1 ? '' : 's'}`)),
    info,
    h('div', { class: 'actions' }, action, h('button', { type: 'button', onclick: () => void openRecord(kind, r.id) }, 'Reload')),
    h('h3', {}, 'Attempts'), attempts,
    kind === 'delivery' ? [h('h3', {}, 'Headers'), table(['name', 'value'], Object.entries(r.headers).map(([k, v]) => [k, String(v)]))] : [],
    h('h3', {}, 'Body' + (r.body_truncated ? ' (only its start is kept)' : '')), pretty(r.body),
  ].flat());
}

/** Re-reads the record until a new attempt has finished (or a while has passed), showing each state. */
async function watch(kind, record) {
  const path = (kind === 'delivery' ? '/deliveries/' : '/inbound/') + record.id;
  const until = Date.now() + WATCH_MS;
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS));
    const now = await api('GET', path);
    if (selected && selected.kind === kind && selected.id === record.id) renderDetail(kind, now);
    const last = now.attempts[now.attempts.length - 1];
    if (now.attempts.length > record.attempts.length && last && last.outcome !== 'running' && now.status !== 'accepted' && now.status !== 'pending') break;
  }
  await loadAll();
}

async function replay(r) {
  if (!(await confirmAction(`Replay delivery #${r.id} (${r.event_type || 'event'}) through connector “${r.connector}”? The connector receives it once more.`, 'Replay'))) return;
  clearBanners();
  try {
    const { job_id } = await api('POST', `/deliveries/${r.id}/replay`);
    notice(`Delivery #${r.id} queued again as job ${job_id}.`);
    await watch('delivery', r);
  } catch (err) { showError(err); }
}

async function retryInbound(r) {
  if (!(await confirmAction(`Retry inbound message #${r.id}? It is posted to the platform again with its thread.`, 'Retry'))) return;
  clearBanners();
  try {
    const { job_id } = await api('POST', `/inbound/${r.id}/retry`);
    notice(`Inbound message #${r.id} queued again as job ${job_id}.`);
    await watch('inbound', r);
  } catch (err) { showError(err); }
}

/** Counts the dead records a filter matches (a dry run), asks, then queues them all again. */
async function retryAllDead(path, filter, what) {
  const body = { status: 'dead', ...filter };
  const dry = await api('POST', path, { ...body, dry_run: true });
  if (dry.matched === 0) return notice(`No dead ${what} match.`);
  const some = (n) => `${n} dead ${n === 1 ? what.replace(/s$/, '') : what}`;
  if (!(await confirmAction(`Retry ${some(dry.matched)}? Each runs again from a fresh attempt count and retry deadline.`, 'Retry all'))) return;
  const done = await api('POST', path, body);
  notice(`${some(done.queued)} queued again.`);
  await loadAll();
}
$('inbound-retry-dead').addEventListener('click', run(() => retryAllDead('/inbound/retry', filterOf($('inbound-filter')), 'inbound messages')));
$('jobs-retry-dead').addEventListener('click', run(() => retryAllDead('/jobs/retry', {}, 'jobs')));

async function retryJob(j) {
  if (!(await confirmAction(`Run dead job ${j.id} (${j.kind}) again from a fresh attempt count?`, 'Retry job'))) return;
  clearBanners();
  try {
    const { job_id } = await api('POST', `/jobs/${j.id}/retry`);
    notice(`Job ${job_id} queued again.`);
    await loadAll();
  } catch (err) { showError(err); }
}

if (token()) void signIn(token()); else signOut();
