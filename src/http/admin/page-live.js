// The live view: GET /admin/api/events (what the gateway receives and sends,
// as it happens) read as a stream with fetch — the token goes as for every
// call, which an EventSource could not send — one line per event, newest on
// top, the last 200 kept. Stopped by its button, by signing out, or when the
// stream ends.
const LIVE_KEEP = 200;
let liveStop = null;

function liveText(e) {
  const t = e.at ? e.at.slice(11, 23) : '';
  if (e.kind === 'gap') return `${t}  ${e.lost} events lost: the page was behind`;
  const parts = [t, e.kind, e.connector, e.event_type, e.result || e.status, e.thread_id, e.duration_ms !== undefined ? e.duration_ms + ' ms' : '', e.code, e.error || e.reason];
  return parts.filter((p) => p !== undefined && p !== null && p !== '').join('  ');
}

function liveShow(e) {
  const list = $('live-list');
  list.prepend(h('li', { class: 'live-' + e.kind }, liveText(e)));
  while (list.children.length > LIVE_KEEP) list.lastElementChild.remove();
}

async function liveStart() {
  const abort = new AbortController();
  liveStop = () => abort.abort();
  $('live-toggle').textContent = 'Stop';
  $('live-state').textContent = 'listening';
  try {
    const res = await fetch(API + '/events', { headers: { authorization: 'Bearer ' + token() }, signal: abort.signal });
    if (res.status === 401) return signOut();
    if (!res.ok || !res.body) throw new ApiError(res.status, { code: 'HTTP_' + res.status, message: 'the live feed is not available' });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        const event = (/^event: (.*)$/m.exec(block) || [])[1];
        if (data && event !== 'ready') liveShow(JSON.parse(data));
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) showError(err);
  } finally {
    liveStop = null;
    $('live-toggle').textContent = 'Start';
    $('live-state').textContent = 'stopped';
  }
}

$('live-toggle').onclick = () => (liveStop ? liveStop() : void liveStart());
$('sign-out').addEventListener('click', () => liveStop && liveStop());
