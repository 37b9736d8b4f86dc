/**
 * How `npm run bench:footprint` (footprint.bench.ts) prints: the idle table
 * (medians of the rounds, each side as a ratio of Node.js alone and of the
 * libraries alone), then the backlog in the memory limit against the
 * libraries alone in the same limit.
 */
import type { BacklogInLimit, LimitedRun } from './backlog-in-limit.ts';
import type { FootprintResult } from './footprint.bench.ts';
import { gatewayEnv, gatewayFlags } from './footprint-gateway.ts';
import { ARRIVING_MAILS, LIBRARIES, type IdleRound } from './idle-footprint.ts';

const fmt = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const MB = 2 ** 20 / 1e6;

function reportIdle(rounds: IdleRound[], idleSeconds: number): void {
  const m = (key: keyof IdleRound) => median(rounds.map((r) => r[key]));
  const node = m('nodeMiB');
  const libraries = m('librariesMiB');
  const row = (label: string, mib: number, ofLibraries = true) =>
    console.log(`| ${label} | ${fmt(mib)} | ${fmt(mib * MB, 0)} | ${fmt(mib / node, 2)} | ${ofLibraries ? fmt(mib / libraries, 2) : '—'} |`);
  console.log(`| idle, medians of ${rounds.length} rounds | RSS MiB | MB | × Node alone | × libraries alone |`);
  console.log('|---|---:|---:|---:|---:|');
  row(`Node.js alone (\`node -e\` on a timer), ${idleSeconds} s after its start`, node, false);
  row(`the libraries \`serve\` imports, alone (${LIBRARIES.join(', ')}), ${idleSeconds} s after`, libraries);
  row(`\`serve\`, e-mail connector, external platform: at its first /readyz 200 (${fmt(m('serveReadySeconds'), 2)} s)`, m('serveReadyMiB'));
  row(`the same, idle ${idleSeconds} s later`, m('serveIdleMiB'));
  row(`the same, after ${ARRIVING_MAILS} mails arrived, were posted, and ${idleSeconds} s passed`, m('serveAfterMailsMiB'));
  row('its peak over the round (VmHWM)', m('servePeakMiB'));
  console.log(
    `\nIdle, the gateway's own beyond its libraries: ${fmt(m('serveIdleMiB') - libraries)} MiB; the libraries' beyond Node.js: ${fmt(libraries - node)} MiB. ` +
      `Rounds (serve idle): ${rounds.map((r) => fmt(r.serveIdleMiB)).join(', ')} MiB.`,
  );
}

function runRow(label: string, r: LimitedRun, floorSeconds: number | undefined, limitMiB: number): void {
  const ratio = floorSeconds === undefined ? '—' : fmt(floorSeconds / r.seconds, 3);
  const end = r.ended === undefined ? 'no' : `ended: ${r.ended}`;
  console.log(
    `| ${label} | ${fmt(r.seconds, 2)} | ${ratio} | ${fmt(r.peakRssMiB)} (${fmt(r.peakRssMiB * MB, 0)} MB) | ${fmt(r.groupPeakMiB)} | ${fmt(r.anonPeakMiB)} | ${r.oomKills ?? '—'} | ${end} | ${fmt(r.peakRssMiB / limitMiB, 2)} |`,
  );
}

function reportBacklog(b: BacklogInLimit): void {
  console.log(`\n| ${b.mails.toLocaleString('en-US')} mails waiting, memory limit ${b.limitMiB} MiB | seconds | × libraries | peak RSS MiB | the group's peak MiB (page cache in) | anon peak MiB | OOM kills | killed | peak ÷ limit |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|');
  runRow(`imapflow + mailparser alone (email-floor.ts; the faster of ${b.floor.runs.map((s) => `${fmt(s, 2)} s`).join(' and ')}), from the connect`, b.floor, undefined, b.limitMiB);
  runRow('`serve`, from its spawn until every mail is posted', b.gateway, b.floor.seconds, b.limitMiB);
  console.log(`\nLimit: ${b.limit}. Posted: ${b.posted.toLocaleString('en-US')} of ${b.mails.toLocaleString('en-US')}.`);
}

export function reportFootprint(r: FootprintResult): void {
  console.log(`node ${process.version}; every process with ${gatewayFlags().join(' ')} ${Object.entries(gatewayEnv()).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
  if (r.rounds.length > 0) reportIdle(r.rounds, r.idleSeconds);
  if (r.backlog) reportBacklog(r.backlog);
}
