/** Running the real `threadgate` command as a child process. */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const MAIN = fileURLToPath(new URL('../../src/cli/threadgate.js', import.meta.url));

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, THREADGATE_CONFIG: '', ...options.env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface LongRunning {
  child: ChildProcessWithoutNullStreams;
  /** Every stdout line parsed as JSON so far (non-JSON lines skipped). */
  lines: Record<string, unknown>[];
  /** Resolves with the first JSON line for which `match` is true. */
  waitForLine(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Starts the command, collecting its JSON log lines; killed after the test. */
export function startCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {}): LongRunning {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, THREADGATE_CONFIG: '', ...options.env },
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        // not a JSON line
      }
    }
    for (const w of waiters) w();
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const waitForLine = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      waiters.add(check);
      void exited.then((code) => {
        if (waiters.has(check)) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`exited with ${code} first; stderr: ${stderr}`));
        }
      });
      check();
    });

  return { child, lines, waitForLine, exited };
}

/** Like runCli, without blocking this process (servers of the test keep answering meanwhile); `input` goes to its standard input. */
export function runCliAsync(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, THREADGATE_CONFIG: '', ...options.env },
    timeout: 20_000,
  });
  child.stdin.end(options.input ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
