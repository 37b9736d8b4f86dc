/**
 * The e-mail backlog's floor, in a process of its own so that its peak RSS
 * stands beside the gateway's: imapflow + mailparser alone fetching every
 * message's source in a mailbox and parsing it, one after another, as a
 * minimal importer would. `node bench/email-floor.ts <host> <port> <user>
 * <password> <expected mails>` prints `{ seconds, parsed, peakRssMiB }` (the
 * seconds from the connect, the import of both libraries not counted).
 */
import { readFileSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';

export interface FloorResult {
  seconds: number;
  parsed: number;
  peakRssMiB: number;
  /** This process's CPU time over those seconds (all its threads, user + system). */
  cpuSeconds: number;
}

/** This process's peak RSS (VmHWM), or another's. */
export function peakRssMiB(pid: number | 'self'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

/** CPU seconds (user + system, all threads) since `start`. */
export function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

async function floor(host: string, port: number, user: string, pass: string): Promise<FloorResult> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const client = new ImapFlow({ host, port, secure: false, auth: { user, pass }, logger: false });
  await client.connect();
  let parsed = 0;
  try {
    await client.mailboxOpen('INBOX', { readOnly: true });
    for await (const msg of client.fetch('1:*', { uid: true, source: true })) {
      if (!msg.source) continue;
      const m = await simpleParser(msg.source);
      if (m.messageId) parsed += 1;
    }
  } finally {
    await client.logout();
  }
  return { seconds: (performance.now() - started) / 1000, parsed, peakRssMiB: peakRssMiB('self'), cpuSeconds: cpuSecondsSince(cpu) };
}

if (import.meta.main) {
  const [host, port, user, pass, expected] = process.argv.slice(2);
  const r = await floor(host as string, Number(port), user as string, pass as string);
  if (r.parsed !== Number(expected)) throw new Error(`the floor parsed ${r.parsed} of ${expected} mails`);
  process.stdout.write(JSON.stringify(r));
}
