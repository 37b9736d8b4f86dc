/**
 * A `threadgate` command (serve, sandbox) run by the try scripts: its output
 * goes to a log file, and it counts as started once it printed the JSON line
 * of its ready event (`gateway_ready`, `sandbox_ready`), which is answered.
 * Stopped with SIGTERM (its graceful stop), SIGKILL after 15 s.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/cli/threadgate.js', import.meta.url));
const READY_MS = 60_000;
const STOP_GRACE_MS = 15_000;

export interface ThreadgateProcess {
  pid: number;
  log: string;
  /** The ready line, parsed. */
  ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/** The environment of the children: none of the caller's THREADGATE_* settings (the script's settings file says it all). */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('THREADGATE_')));
}

export async function startThreadgate(args: string[], log: string, readyEvent: string): Promise<ThreadgateProcess> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv() });
  const out = createWriteStream(log);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve())); // its output read to the end
  child.stderr.pipe(out, { end: false });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if ((await Promise.race([exited, sleep(STOP_GRACE_MS, 'late' as const, { ref: false })])) === 'late') child.kill('SIGKILL');
    }
    await exited;
    await new Promise((resolve) => out.end(resolve));
  };
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`threadgate ${args[0]}: no ${readyEvent} within ${READY_MS} ms; its log: ${log}`)), READY_MS);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out.write(chunk);
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes(readyEvent)) continue;
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.event === readyEvent) {
            clearTimeout(timer);
            resolve(parsed);
          }
        } catch {} // not a JSON line
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      setTimeout(() => reject(new Error(`threadgate ${args[0]} exited (${child.exitCode ?? child.signalCode}) before ${readyEvent}; its log, ${log}:\n${tail(log)}`)), 100);
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { pid: child.pid ?? 0, log, ready, stop };
}

function tail(log: string): string {
  try {
    return readFileSync(log, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '';
  }
}
