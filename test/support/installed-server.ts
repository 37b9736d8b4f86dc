/**
 * What the starters of Debian-packaged servers the tests run (Redmine,
 * Request Tracker) share: installing the packages when they are not usable
 * yet, and telling whether the process that left a server behind still runs.
 */
import { spawnSync } from 'node:child_process';

/** Whether a process with this id runs (and may be signalled by us). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `script` (one of scripts/install-*, as root) unless `installed()` already holds; throws with its last lines of
 * output when it fails or leaves the server unusable. `what` names the server in the errors.
 */
export function ensureInstalled(what: string, script: string, installed: () => boolean): void {
  if (installed()) return;
  const name = script.split('/').pop();
  if (process.getuid?.() !== 0) throw new Error(`${what} is not installed; run scripts/${name} as root (CI does, in \`npm run pretest\`).`);
  const run = spawnSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0 || !installed()) throw new Error(`scripts/${name} failed (${run.status}):\n${(run.stderr ?? '').split('\n').slice(-30).join('\n')}`);
}
