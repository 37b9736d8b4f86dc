/**
 * Reaching the embedded sandbox that `serve` runs with these settings, from
 * another process: its address comes from its state file beside the store
 * (src/sandbox/persistence.ts), and its control API is under `/_sandbox`.
 * `sandbox chats|reply` and `trigger --file` use it.
 */
import { loadSettings } from '../config/load.ts';
import { readSandboxFile } from '../sandbox/persistence.ts';
import { SandboxUnreachableError, UsageError } from './errors.ts';
import { sandboxFileOf } from './platform-target.ts';

/** The base URL of the sandbox that the settings' `serve` runs; `platformNamed` is the usage error when they name a platform. */
export function sandboxBaseUrl(config: string | undefined, platformNamed = 'these settings name a platform (platform.url): there is no embedded sandbox to talk to'): string {
  const loaded = loadSettings({ path: config, needs: ['store', 'sandbox', 'platform.url'] });
  if (loaded.settings.platform.url !== undefined) throw new UsageError(platformNamed);
  const file = sandboxFileOf(loaded);
  if (file === undefined) throw new UsageError('the embedded sandbox keeps no file with these settings (a PostgreSQL store, or sandbox.keep_state: false): call its /_sandbox API at the URL serve logged');
  const url = readSandboxFile(file)?.url;
  if (!url) throw new SandboxUnreachableError(`no sandbox has run with these settings yet (no ${file}): start threadgate serve`);
  return url;
}

/** One call of the control API; its JSON answer, or a `SandboxUnreachableError` that says what went wrong. */
export async function sandboxCall(url: string, method: string, path: string, body?: unknown): Promise<any> {
  let res: Response;
  try {
    res = await fetch(`${url}/_sandbox${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new SandboxUnreachableError(`the sandbox at ${url} does not answer (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}): is threadgate serve running?`);
  }
  const text = await res.text();
  if (!res.ok) throw new SandboxUnreachableError(`the sandbox answered ${res.status}: ${text.slice(0, 300)}`);
  return text === '' ? undefined : JSON.parse(text);
}
