/**
 * Runs a benchmark server script in a child process and waits for the URL it
 * prints on a line of its own on stdout. `stop()` sends SIGTERM and waits for the
 * exit (a child started with `--cpu-prof` writes its profile then).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface SpawnedServer {
  name: string;
  url: string;
  child: ChildProcess;
  /** Resident set size of the child now, in bytes (Linux: /proc/<pid>/status). */
  rss(): number;
  stop(): Promise<void>;
}

export function spawnServer(script: string, args: readonly string[] = [], options: { execArgv?: string[]; env?: Record<string, string> } = {}): Promise<SpawnedServer> {
  const name = basename(script, '.ts');
  const child = spawn(process.execPath, [...(options.execArgv ?? []), script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...options.env },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let url: string | undefined;
    // Read to the end (a full pipe would stall the child); the URL is the first line that is one.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (url !== undefined) return;
      out += chunk;
      url = /^https?:\/\/\S+$/m.exec(out)?.[0];
      if (url === undefined) return;
      resolve({
        name,
        url,
        child,
        rss: () => rssOf(child.pid!),
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before printing its URL`)));
  });
}

/** A process's resident set (VmRSS), bytes; NaN when /proc does not say. */
export function rssOf(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) * 1024 : Number.NaN;
}
