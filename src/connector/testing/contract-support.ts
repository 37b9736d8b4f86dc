/**
 * What the contract suite (contract.ts) measures with: the resources a
 * connector made and left open, the secrets among its settings, and a
 * deadline on a promise; and how a check fails.
 */
import { createHook } from 'node:async_hooks';

/** What keeps a process alive: timers, sockets, servers, child processes, watchers (not promises or one-off callbacks). */
const LASTING = new Set(['Timeout', 'TCPWRAP', 'TCPSERVERWRAP', 'TLSWRAP', 'PIPEWRAP', 'PIPESERVERWRAP', 'UDPWRAP', 'PROCESSWRAP', 'FSEVENTWRAP', 'STATWATCHER', 'SIGNALWRAP']);

/** The resources made while it runs that are still open (and hold the process) when asked, by kind. */
export interface ResourceWatch {
  /** `2 × TCPWRAP`-style counts of what is still open and referenced, after up to `settleMs` for closes to finish. */
  left(settleMs?: number): Promise<string[]>;
}

/** Starts watching the resources made from now on (async_hooks), until `left` is asked. */
export function watchResources(): ResourceWatch {
  const open = new Map<number, { type: string; resource: { hasRef?: () => boolean } }>();
  /** Off once `left` is asked: its own waiting makes timers too. */
  let collecting = true;
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (collecting && LASTING.has(type)) open.set(id, { type, resource: resource as { hasRef?: () => boolean } });
    },
    destroy(id) {
      open.delete(id);
    },
  }).enable();
  const holding = () => [...open.values()].filter(({ resource }) => {
    try {
      return resource.hasRef?.() ?? true;
    } catch {
      return true;
    }
  });
  return {
    async left(settleMs = 1_000) {
      collecting = false;
      const deadline = Date.now() + settleMs;
      while (holding().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      hook.disable();
      const counts = new Map<string, number>();
      for (const { type } of holding()) counts.set(type, (counts.get(type) ?? 0) + 1);
      return [...counts].map(([type, n]) => `${n} × ${type}`);
    },
  };
}

/** A secret of the settings: where it is, and its value (never printed). */
export interface SettingsSecret {
  path: string;
  value: string;
}

const SECRET_KEY = /secret|password|passwd|token|api_?key|private|credential/i;

/** Every string of 6 characters or more under a key that names a secret, at any depth. */
export function secretsOf(settings: unknown, at = ''): SettingsSecret[] {
  if (settings === null || typeof settings !== 'object') return [];
  return Object.entries(settings as Record<string, unknown>).flatMap(([key, value]) => {
    const path = at === '' ? key : `${at}.${key}`;
    if (typeof value === 'string') return SECRET_KEY.test(key) && value.length >= 6 ? [{ path, value }] : [];
    return secretsOf(value, path);
  });
}

/** `promise`, or a rejection with `message` when it has not settled within `ms`. */
export async function withinMs<T>(ms: number, promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A check of a contract suite failed: its message is the reason shown. */
export class ContractFailure extends Error {
  override readonly name = 'ContractFailure';
  readonly code = 'TG_CONTRACT_FAILED';
}

export function fail(message: string): never {
  throw new ContractFailure(message);
}
