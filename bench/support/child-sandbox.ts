/**
 * The sandbox platform in a child process (`threadgate sandbox --port 0`), so
 * a benchmark's gateway does not share its event loop with the platform it
 * posts to.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ChildSandbox {
  url: string;
  organizationId: string;
  roomId: string;
  token: string;
  /** The sandbox process's pid (its CPU time: bench/support/measure.ts processCpuMicros). */
  pid: number;
  close(): Promise<void>;
}

const MAIN = join(import.meta.dirname, '../../src/cli/threadgate.js');

export function startChildSandbox(): Promise<ChildSandbox> {
  const child = spawn(process.execPath, [MAIN, 'sandbox', '--port', '0', '--log-level', 'silent'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the sandbox exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      let ready: { event?: string; url: string; organization_id: string; room_id: string; token: string };
      try {
        ready = JSON.parse(line) as typeof ready;
      } catch {
        return;
      }
      if (ready.event !== 'sandbox_ready') return;
      resolve({
        url: ready.url,
        organizationId: ready.organization_id,
        roomId: ready.room_id,
        token: ready.token,
        pid: child.pid as number,
        close: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
