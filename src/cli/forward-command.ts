/**
 * `threadgate replay <id>… --to URL --secret S` and
 * `threadgate replay --from file.ndjson --to URL --secret S`: stored (or
 * exported) webhooks re-signed with a fresh timestamp and POSTed to any URL,
 * printing each answer. The secret must be named: `--secret` (a staging
 * gateway's), or deliberately `--sign-with-live-secret` for the connector's
 * current one from the store — whoever receives a webhook signed with that
 * could send it to production within the timestamp tolerance.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.ts';
import { requireRead } from '../config/load.ts';
import { forwardSigned, type ExportedDelivery } from './forward.ts';
import { parseId } from './log-filters.ts';
import type { Store } from '../store/database.ts';
import { openConfiguredStore } from './store-access.ts';
import { printJson } from './table.ts';

interface ForwardValues {
  config?: string | undefined;
  to?: string | undefined;
  secret?: string | undefined;
  'sign-with-live-secret'?: boolean | undefined;
  from?: string | undefined;
  status?: string[] | undefined;
  json?: boolean | undefined;
  'dry-run'?: boolean | undefined;
}

interface Item {
  id: number;
  connector: string;
  body: string;
  problem?: string;
}

export async function forwardCommand(values: ForwardValues, positionals: string[]): Promise<number> {
  const to = values.to;
  if (to === undefined) throw new UsageError('--from goes with --to URL');
  if (!/^https?:\/\/[^\s]+$/.test(to)) throw new UsageError(`--to must be an http(s) URL, got "${to}"`);
  if (values.status !== undefined) throw new UsageError('--to sends the deliveries named by id or --from, not a --status filter');
  if (values['dry-run']) throw new UsageError('--dry-run does not go with --to: it lists what a replay to the connectors would queue (deliveries show <id> prints what --to would send)');
  if ((values.from === undefined) === (positionals.length === 0)) {
    throw new UsageError(`--to sends the deliveries named by id or by --from file.ndjson: give ${values.from === undefined ? 'one of them' : 'one, not both'}`);
  }
  const live = values['sign-with-live-secret'] === true;
  if (values.secret === undefined && !live) {
    throw new UsageError(
      '--to needs the secret to sign with: --secret S (the receiving gateway\'s), or --sign-with-live-secret to sign with ' +
        "this gateway's live secret of the connector (whoever receives it can send it to production within the timestamp tolerance)",
    );
  }
  if (values.secret !== undefined && live) throw new UsageError('give --secret S or --sign-with-live-secret, not both');

  const { loaded, store } = await openConfiguredStore(values.config);
  try {
    requireRead(loaded, ['platform.signature']); // how the receiving gateway checks what is sent
    const items: Item[] = values.from !== undefined ? readExport(values.from) : await fromStore(store, positionals);
    const results: { id: number; status?: number; body?: string; error?: string }[] = [];
    for (const item of items) {
      const secret = live ? (await store.read.registrations.get(item.connector))?.secret : values.secret;
      if (item.problem || secret === undefined) {
        results.push({ id: item.id, error: item.problem ?? `connector ${item.connector} has no secret in this store: give --secret S` });
        continue;
      }
      try {
        const res = await forwardSigned(to, item.body, secret, loaded.settings.platform.signature.payload);
        results.push({ id: item.id, status: res.status, body: res.body });
      } catch (err) {
        results.push({ id: item.id, error: `no answer: ${(err as Error).message}` });
      }
    }
    if (values.json) printJson(results);
    else for (const r of results) process.stdout.write(r.error ? `${r.id}: ${r.error}\n` : `${r.id}: ${r.status} ${r.body}\n`);
    return results.every((r) => r.status !== undefined && r.status >= 200 && r.status < 300) ? 0 : 1;
  } finally {
    await store.close();
  }
}

async function fromStore(store: Store, positionals: string[]): Promise<Item[]> {
  const items: Item[] = [];
  for (const p of positionals) {
    const id = parseId(p, 'a delivery id');
    const d = await store.read.deliveries.byId(id);
    if (!d) items.push({ id, connector: '', body: '', problem: `no delivery ${id}` });
    else if (d.status === 'rejected') items.push({ id, connector: d.connector, body: d.body, problem: `delivery ${id} was rejected: there is no verified event to send` });
    else if (d.bodyTruncated) items.push({ id, connector: d.connector, body: d.body, problem: `delivery ${id} keeps only the start of its body` });
    else items.push({ id, connector: d.connector, body: d.body });
  }
  return items;
}

function readExport(file: string): Item[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--from: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      let d: Partial<ExportedDelivery>;
      try {
        d = JSON.parse(line) as Partial<ExportedDelivery>;
      } catch {
        throw new UsageError(`--from: line ${i + 1} of ${file} is not JSON`);
      }
      if (typeof d.id !== 'number' || typeof d.connector !== 'string' || typeof d.body !== 'string') {
        throw new UsageError(`--from: line ${i + 1} of ${file} lacks id, connector or body`);
      }
      const problem = d.status === 'rejected' ? `delivery ${d.id} was rejected` : d.body_truncated ? `delivery ${d.id} keeps only the start of its body` : undefined;
      return { id: d.id, connector: d.connector, body: d.body, ...(problem ? { problem } : {}) };
    });
}
