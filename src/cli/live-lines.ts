/**
 * One line per live event for people (`threadgate listen` without --json):
 *
 *   03:41:07.123  webhook   desk  message_created  accepted   thread desk:T-1  chat 5c9c…  delivery 12
 *   03:41:07.140  delivery  desk  message_created  delivered  15 ms  attempt 1  external 4711
 *   03:41:07.200  intake    desk  stored  message m-1  thread desk:T-1
 *   03:41:07.300  platform  desk  posted 1 message  chat 5c9c… (new session)  42 ms
 *   03:41:08.000  gap       12 events lost: this reader was behind
 */
import type { LiveEvent } from '../base/live-feed.ts';

const time = (iso: string) => iso.slice(11, 23);
const pad = (s: string, n: number) => s.padEnd(n);
const opt = (label: string, value: unknown) => (value === undefined || value === null || value === '' ? '' : `  ${label} ${String(value)}`);

export function liveLine(e: LiveEvent): string {
  const head = `${time(e.at)}  ${pad(e.kind, 8)}  `;
  switch (e.kind) {
    case 'gap':
      return `${head}${String(e.lost)} events lost: this reader was behind`;
    case 'webhook': {
      const what = e.result === 'rejected' ? `rejected   ${String(e.code)}: ${String(e.reason)}` : pad(String(e.result), 10);
      return `${head}${e.connector}  ${e.event_type ?? '-'}  ${what}${opt('thread', e.thread_id)}${opt('chat', e.chat_id)}${opt('delivery', e.delivery_id)}`;
    }
    case 'delivery':
      return `${head}${e.connector}  ${String(e.event_type)}  ${pad(String(e.status), 9)}  ${String(e.duration_ms)} ms  attempt ${String(e.attempt)}${opt('external', e.external_id)}${opt('reason', e.reason)}${opt('error', e.error)}`;
    case 'intake':
      return `${head}${e.connector}  ${String(e.result)}  message ${String(e.message_id)}${opt('thread', e.thread_id)}${opt('code', e.code)}${opt('reason', e.reason)}`;
    case 'platform': {
      const what = e.status === 'posted' ? `posted ${String(e.messages)} message${e.messages === 1 ? '' : 's'}${opt('chat', e.chat_id)}${e.is_new_session ? ' (new session)' : ''}` : String(e.status);
      return `${head}${e.connector}  ${what}${opt('thread', e.status === 'posted' ? undefined : e.thread_id)}  ${String(e.duration_ms)} ms${opt('error', e.error)}`;
    }
    default:
      return `${head}${e.connector}  ${JSON.stringify(e)}`;
  }
}
