/** Runs a Node script in a child process (with `nodeArgs` before it) and parses the JSON it prints on stdout. */
import { spawn } from 'node:child_process';
import { basename } from 'node:path';

export function spawnJson<T>(script: string, args: readonly string[], env: Record<string, string> = {}, nodeArgs: readonly string[] = []): Promise<T> {
  const name = basename(script, '.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${name} exited with ${code}`));
      try {
        resolve(JSON.parse(out) as T);
      } catch (err) {
        reject(new Error(`${name} printed no JSON: ${(err as Error).message}`));
      }
    });
  });
}
