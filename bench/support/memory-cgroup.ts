/**
 * A memory limit for one child process, as a container's: a cgroup made for
 * it (root only). cgroup v2 where its memory controller is on
 * (`memory.max`, `memory.peak`, `memory.events`' oom_kill); else cgroup v1's
 * memory controller, the same limit under its v1 names
 * (`memory.limit_in_bytes`, `memory.max_usage_in_bytes`, `memory.oom_control`'
 * oom_kill). Both count page cache with the process's memory, as a
 * container's limit does; the kernel reclaims that cache before it kills.
 * `undefined` when neither can be made here: the caller says so.
 *
 * The child joins the group before Node.js starts (a shell writes its own pid
 * into `cgroup.procs`, then `exec`s), so Node sees the limit from its first
 * instruction (`process.constrainedMemory()`), as in a container.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  /** `cgroup v2` or `cgroup v1`, and the limit's file. */
  readonly kind: string;
  readonly path: string;
  /** The command and its arguments for `spawn`, made to start inside the group. */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** The group's highest memory use so far, bytes (page cache included). */
  peakBytes(): number;
  /** Anonymous memory now, bytes (what cannot be reclaimed without swap). */
  anonBytes(): number;
  /** Processes of the group killed by the OOM killer so far. */
  oomKills(): number;
  /** Removes the group (its processes must have ended). */
  remove(): void;
}

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

const read = (file: string): string => readFileSync(file, 'utf8');
const field = (text: string, name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

function wrapper(path: string) {
  return (command: string, args: readonly string[]): [string, string[]] => [
    '/bin/sh',
    ['-c', `echo $$ > '${join(path, 'cgroup.procs')}' && exec "$0" "$@"`, command, ...args],
  ];
}

function v2(name: string, limitBytes: number): MemoryCgroup | undefined {
  if (!existsSync(join(V2_ROOT, 'cgroup.controllers')) || !read(join(V2_ROOT, 'cgroup.controllers')).split(/\s+/).includes('memory')) return undefined;
  const path = join(V2_ROOT, name);
  mkdirSync(path);
  writeFileSync(join(path, 'memory.max'), String(limitBytes));
  // No swap either, as in a container without it (absent when the kernel does not account swap).
  if (existsSync(join(path, 'memory.swap.max'))) writeFileSync(join(path, 'memory.swap.max'), '0');
  return {
    kind: 'cgroup v2, memory.max',
    path,
    wrap: wrapper(path),
    peakBytes: () => Number(read(join(path, 'memory.peak'))),
    anonBytes: () => field(read(join(path, 'memory.stat')), 'anon'),
    oomKills: () => field(read(join(path, 'memory.events')), 'oom_kill'),
    remove: () => rmdirSync(path),
  };
}

function v1(name: string, limitBytes: number): MemoryCgroup | undefined {
  if (!existsSync(join(V1_ROOT, 'memory.limit_in_bytes'))) return undefined;
  const path = join(V1_ROOT, name);
  mkdirSync(path);
  writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitBytes));
  return {
    kind: 'cgroup v1, memory.limit_in_bytes (this kernel mounts the memory controller as v1)',
    path,
    wrap: wrapper(path),
    peakBytes: () => Number(read(join(path, 'memory.max_usage_in_bytes'))),
    anonBytes: () => field(read(join(path, 'memory.stat')), 'rss'),
    oomKills: () => field(read(join(path, 'memory.oom_control')), 'oom_kill'),
    remove: () => rmdirSync(path),
  };
}

/** A new group limited to `limitBytes`, or undefined (not root, no memory controller): the reason in `why`. */
export function memoryCgroup(limitBytes: number, why: (reason: string) => void): MemoryCgroup | undefined {
  const name = `threadgate-bench-${process.pid}-${Date.now()}`;
  for (const make of [v2, v1]) {
    try {
      const group = make(name, limitBytes);
      if (group) return group;
    } catch (err) {
      why(`${make.name}: ${(err as Error).message}`);
    }
  }
  why('no cgroup memory controller this process may use (v2 memory not enabled, no v1 memory hierarchy)');
  return undefined;
}
