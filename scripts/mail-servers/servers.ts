/**
 * A local Dovecot (IMAP with IDLE, LMTP, SMTP submission) and OpenSMTPD
 * (SMTP, delivering mail for example.test and customer.test to Dovecot over
 * LMTP) on free loopback ports, with configuration, mail and logs in one
 * folder: the e-mail tests' servers (test/support/mail-global-setup.ts) and
 * those of scripts/try-mail-servers.
 *
 * - Both start as root and drop privileges: Dovecot refuses root for its
 *   login processes (they run as `dovenull`, its internal ones as `dovecot`),
 *   so the folder is world-readable; mail belongs to the system user `mail`
 *   (first_valid_uid).
 * - Users: one passwd-file per address (addMailUser). Dovecot opens the file
 *   named by the login at each lookup, so a user works the moment its file
 *   exists (a shared file is re-read at most once a second).
 * - OpenSMTPD's queue and control socket paths are compiled in. Where mount
 *   namespaces work (root on a VM, privileged containers) ours gets private
 *   ones bound over them (`unshare -m`), so concurrent instances and a system
 *   smtpd don't collide; elsewhere it uses the global ones: one at a time,
 *   queue emptied first.
 * - Ready means: an IMAP login of `login` works, and LMTP, submission and
 *   SMTP greet.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dovecotConf, MAIL_ID, smtpdConf, type DovecotPorts } from './configs.ts';
import { ENV, freePorts, kill, launch, probe, ready, running, stop, type Proc } from './processes.ts';

export const INSTALL = 'apt-get install -y --no-install-recommends dovecot-imapd dovecot-lmtpd dovecot-submissiond opensmtpd';
const SMTPD_SPOOL = '/var/spool/smtpd';

export interface ServerPid { pid: number; start: string | undefined; group: boolean }

export interface MailServerOptions {
  /** A folder made ready by prepareMailDir, with its users added. */
  dir: string;
  /** dovecot.conf's auth_mechanisms and passdbs (configs.ts, passwordAuthConf). */
  auth: string;
  /** A user whose IMAP login tells that Dovecot is ready. */
  login: { user: string; password: string };
  /** Told the live server processes each time they change (a state file for a later clean-up). */
  onProcesses?: (pids: ServerPid[]) => void;
}

export interface MailServers {
  ports: DovecotPorts;
  /** Whether OpenSMTPD has a private queue and control socket (a mount namespace of its own). */
  isolated: boolean;
  pids(): ServerPid[];
  /** Stops Dovecot and starts it again; OpenSMTPD then retries at once what LMTP refused meanwhile. */
  restartDovecot(): Promise<void>;
  /** Stops both; the folder stays. */
  stop(): Promise<void>;
}

/** The versions found; throws, with how to install them, when the servers are missing or we are not root. `purpose`: who needs them. */
export function checkMailServers(purpose: string): { dovecot: string; smtpd: string } {
  const dovecot = spawnSync('dovecot', ['--version'], { env: ENV, encoding: 'utf8' });
  const smtpd = spawnSync('smtpd', ['-h'], { env: ENV, encoding: 'utf8' });
  const missing = [dovecot.error && 'dovecot', smtpd.error && 'smtpd', !existsSync('/usr/lib/dovecot/imap') && 'dovecot-imapd', !existsSync('/usr/lib/dovecot/lmtp') && 'dovecot-lmtpd', !existsSync('/usr/lib/dovecot/submission') && 'dovecot-submissiond'].filter(Boolean);
  if (missing.length > 0) throw new Error(`Real mail servers are needed (${purpose}), missing here: ${missing.join(', ')}.\nInstall them (scripts/install-mail-servers does):\n  sudo ${INSTALL}`);
  if (process.getuid?.() !== 0) throw new Error(`Dovecot and OpenSMTPD must be started as root (${purpose}); they drop privileges themselves.`);
  const found = { dovecot: dovecot.stdout.trim(), smtpd: /OpenSMTPD\s+(\S+)/.exec(smtpd.stderr + smtpd.stdout)?.[1] ?? 'unknown' };
  if (!found.dovecot.startsWith('2.3.')) throw new Error(`scripts/mail-servers writes Dovecot 2.3 settings; found Dovecot ${found.dovecot}`);
  return found;
}

/** The folder's layout: users/ (passwd-files), mail/ (the user `mail`'s), OpenSMTPD's private spool and run folders. */
export function prepareMailDir(dir: string): void {
  chmodSync(dir, 0o755); // Dovecot's unprivileged processes reach base_dir and homes below it
  for (const sub of ['users', 'mail', 'smtpd-spool', 'smtpd-run']) mkdirSync(join(dir, sub));
  chownSync(join(dir, 'mail'), MAIL_ID, MAIL_ID);
  chmodSync(join(dir, 'smtpd-spool'), 0o711);
}

/** A mailbox user, able to log in (IMAP, submission) and to receive mail at once. */
export function addMailUser(dir: string, address: string, password: string): void {
  writeFileSync(join(dir, 'users', address), `${address}:{PLAIN}${password}::::::\n`);
}

export async function startMailServers(options: MailServerOptions): Promise<MailServers> {
  const { dir, login } = options;
  const [imapPort, smtpPort, lmtpPort, submissionPort] = (await freePorts(4)) as [number, number, number, number];
  const ports = { imap: imapPort, lmtp: lmtpPort, submission: submissionPort, smtp: smtpPort };
  writeFileSync(join(dir, 'dovecot.conf'), dovecotConf(dir, ports, options.auth));
  writeFileSync(join(dir, 'smtpd.conf'), smtpdConf(smtpPort, lmtpPort));
  // Can smtpd get a private queue, i.e. may we bind mounts in a mount namespace of its own?
  const isolated = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$1" "$1"', 'sh', dir], { env: ENV, stdio: 'ignore' }).status === 0;

  let dovecot: Proc | undefined;
  let smtpd: Proc | undefined;
  const pids = () => [dovecot, smtpd].flatMap((p) => (p?.child.pid && running(p) ? [{ pid: p.child.pid, start: p.start, group: p.group }] : []));
  const record = () => options.onProcesses?.(pids());
  const onExit = () => [dovecot, smtpd].forEach((p) => running(p) && kill(p, p?.group ? 'SIGKILL' : 'SIGTERM'));
  process.on('exit', onExit);
  const stopBoth = async () => {
    await Promise.all([stop(dovecot), stop(smtpd)]);
    process.off('exit', onExit);
  };
  const smtpctl = (...args: string[]) => {
    const command = isolated ? ['nsenter', '-m', '-t', String(smtpd?.child.pid), 'smtpctl', ...args] : ['smtpctl', ...args];
    const result = spawnSync(command[0] ?? '', command.slice(1), { env: ENV, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr}`);
  };
  const startDovecot = async () => {
    dovecot = launch('dovecot', ['-F', '-c', join(dir, 'dovecot.conf')], join(dir, 'dovecot.log'), true);
    record();
    const loginWorks = () => probe(imapPort, '* OK', `a LOGIN "${login.user}" "${login.password}"\r\n`, /^a OK/m);
    await ready('Dovecot', dovecot, async () => (await loginWorks()) && (await probe(lmtpPort, '220 ')) && (await probe(submissionPort, '220 ')));
  };

  try {
    if (!isolated && (await probe('/run/smtpd.sock'))) {
      throw new Error('Another OpenSMTPD runs on this machine (a system service, a test run or scripts/try-mail-servers), and mount namespaces are unavailable here to give ours a private queue: stop it (systemctl stop opensmtpd) or wait for the other run.');
    }
    if (isolated) mkdirSync(SMTPD_SPOOL, { recursive: true, mode: 0o711 });
    const smtpdArgs = ['-d', '-f', join(dir, 'smtpd.conf'), ...(isolated ? [] : ['-P', 'mda'])];
    const bindAndRun = `mount --bind "$1" ${SMTPD_SPOOL} && mount --bind "$2" /run && shift 2 && exec smtpd "$@"`;
    smtpd = isolated
      ? launch('unshare', ['-m', 'sh', '-c', bindAndRun, 'sh', join(dir, 'smtpd-spool'), join(dir, 'smtpd-run'), ...smtpdArgs], join(dir, 'smtpd.log'))
      : launch('smtpd', smtpdArgs, join(dir, 'smtpd.log'));
    await Promise.all([startDovecot(), ready('OpenSMTPD', smtpd, () => probe(smtpPort, '220 '))]);
    if (!isolated) {
      smtpctl('remove', 'all'); // a crashed run's envelopes in the global queue
      smtpctl('resume', 'mda');
    }
    record();
  } catch (err) {
    await stopBoth();
    throw err;
  }

  return {
    ports,
    isolated,
    pids,
    async restartDovecot() {
      await stop(dovecot);
      await startDovecot();
      smtpctl('schedule', 'all'); // retry what LMTP refused meanwhile now, not minutes later
    },
    stop: stopBoth,
  };
}
