/** Shared by the channel configuration suites: a valid registration body and the generated-secret pattern. */
import type { TestSandbox } from './support.ts';

export const HEX64 = /^[0-9a-f]{64}$/;

export function validBody(sb: TestSandbox, fields: Record<string, unknown> = {}) {
  return { name: 'Inbox', messaging_channel: 'email', room_id: sb.roomId, reply_webhook_url: 'https://x.test/hook', ...fields };
}
