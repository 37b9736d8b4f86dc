/**
 * The proxy's memory under large bodies, for `npm run bench:proxy`: a 100 MiB
 * multipart upload (a documented avatar upload), then a 100 MiB download (a
 * documented reporting download, its JSON body checked) through a proxy in
 * another process, its RSS sampled every 10 ms; the figure is the peak RSS
 * during the transfer minus the RSS just before it. The download is read at
 * most ~400 MiB/s (a pause of 2.5 ms per MiB), so a proxy that did not honour
 * back-pressure would hold what the upstream sent ahead.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { BODIES } from '../../test/support/endpoint-samples.ts';
import { DOWNLOAD_PATH, KEY, UPLOAD_PATH } from './proxy-bench-constants.ts';
import type { SpawnedServer } from '../support/spawn-server.ts';

const MiB = 1024 * 1024;

export interface StreamFigure {
  what: string;
  bytes: number;
  seconds: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  growthMiB: number;
}

async function sampled(proxy: SpawnedServer, what: string, run: () => Promise<number>): Promise<StreamFigure> {
  await sleep(200);
  const before = proxy.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, proxy.rss())), 10);
  const started = performance.now();
  try {
    const bytes = await run();
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, proxy.rss());
    return { what, bytes, seconds, rssBeforeMiB: before / MiB, rssPeakMiB: peak / MiB, growthMiB: (peak - before) / MiB };
  } finally {
    clearInterval(timer);
  }
}

async function download(proxyUrl: string, size: number): Promise<number> {
  const res = await request(`${proxyUrl}${DOWNLOAD_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-bench-bytes': String(size) },
    body: JSON.stringify(BODIES.downloadWorkflowSourceData),
  });
  if (res.statusCode !== 200) throw new Error(`download answered ${res.statusCode}: ${await res.body.text()}`);
  let received = 0;
  let nextPause = MiB;
  for await (const chunk of res.body) {
    received += (chunk as Buffer).length;
    if (received >= nextPause) {
      nextPause += MiB;
      await sleep(2.5);
    }
  }
  if (received !== size) throw new Error(`download: ${received} of ${size} bytes`);
  return received;
}

async function upload(proxyUrl: string, size: number): Promise<number> {
  const boundary = '----threadgate-bench-5e1d';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + size + tail.length;
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  async function* body(): AsyncGenerator<Buffer> {
    yield head;
    for (let sent = 0; sent < size; sent += chunk.length) yield size - sent >= chunk.length ? chunk : chunk.subarray(0, size - sent);
    yield tail;
  }
  const res = await request(`${proxyUrl}${UPLOAD_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(total) },
    body: Readable.from(body()),
  });
  const answer = (await res.body.json()) as { received?: number };
  if (res.statusCode !== 200 || answer.received !== total) throw new Error(`upload answered ${res.statusCode}: ${JSON.stringify(answer)}`);
  return total;
}

export async function measureStreams(proxy: SpawnedServer, sizeMiB = 100): Promise<StreamFigure[]> {
  const size = sizeMiB * MiB;
  await download(proxy.url, MiB); // warm: connections, code paths
  await upload(proxy.url, MiB);
  const up = await sampled(proxy, `${sizeMiB} MiB upload`, () => upload(proxy.url, size));
  const down = await sampled(proxy, `${sizeMiB} MiB download`, () => download(proxy.url, size));
  return [up, down];
}

export function reportStreams(name: string, figures: readonly StreamFigure[]): void {
  console.log(`\n${name}: RSS while streaming (sampled every 10 ms)`);
  console.log('| transfer | MiB/s | RSS before MiB | RSS peak MiB | growth MiB |');
  console.log('|---|---:|---:|---:|---:|');
  for (const f of figures) {
    console.log(`| ${f.what} | ${(f.bytes / MiB / f.seconds).toFixed(0)} | ${f.rssBeforeMiB.toFixed(1)} | ${f.rssPeakMiB.toFixed(1)} | ${f.growthMiB.toFixed(1)} |`);
  }
}
