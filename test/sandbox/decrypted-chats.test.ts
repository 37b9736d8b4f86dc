/**
 * Encrypted chats and the decrypted-chats listing of spec 01 over real HTTP:
 * messages are stored AES-encrypted with the chat's key RSA-encrypted to the
 * organization's public key; X-PRIVATE-KEY (one line, escaped newlines)
 * decrypts them per request, and the key is never kept or logged.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Chat, DecryptedChatPage } from '../../src/platform/schemas/chats.ts';
import { at, startSpec01Sandbox, type Spec01Sandbox } from './spec01-support.ts';
import { startTestSandbox } from './support.ts';

const T0 = '2026-02-01T09:00:00.000Z';

interface Keys {
  private_key: string;
  private_key_one_line: string;
  public_key: string;
}

async function enableEncryption(sb: Spec01Sandbox): Promise<Keys> {
  const res = await sb.call('POST', `/_sandbox/organizations/${sb.organizationId}/encryption`);
  expect(res.status).toBe(201);
  return res.body as Keys;
}

const decrypted = (sb: Spec01Sandbox, key: string | null, query = '', room = sb.roomId) =>
  sb.call('GET', sb.org(`/rooms/${room}/decrypted-chats${query}`), undefined, key === null ? {} : { headers: { 'x-private-key': key } });

describe('decrypted chats', () => {
  it('an encrypted chat stores only ciphertext and its encrypted key; the listing decrypts with the one-line key', async () => {
    const sb = await startSpec01Sandbox();
    const keys = await enableEncryption(sb);
    expect(keys.private_key_one_line).not.toContain('\n');
    expect(keys.private_key_one_line).toContain('\\n');
    const chat = await sb.seedChat({
      encrypted: true,
      created_at: T0,
      messages: [
        { sender: 'visitor', text: 'My card number is 4111', created_at: at(T0, 5) },
        { sender: 'user', text: 'Thanks, noted.', created_at: at(T0, 20) },
      ],
    });

    const owned = Chat.parse((await sb.call('GET', sb.org(`/owned_chats/${chat.id}`))).body);
    expect(owned.is_encrypted).toBe(true);
    expect(owned.encrypted_symmetric_key).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const stored = (await sb.call('GET', `/_sandbox/chats/${chat.id}/messages`)).text;
    expect(stored).not.toContain('4111');
    expect(stored).not.toContain('noted');

    const res = await decrypted(sb, keys.private_key_one_line);
    expect(res.status).toBe(200);
    const page = DecryptedChatPage.parse(res.body);
    expect(page.count).toBe(1);
    expect(page.results[0]).toMatchObject({ id: chat.id, is_encrypted: true, message_count: 2, room_id: sb.roomId, room_name: 'Support' });
    const msgs = page.results[0]!.messages.filter((m) => m.type === 'msg');
    expect(msgs.map((m) => [m.sender_type, m.content, m.is_encrypted])).toEqual([
      ['visitor', 'My card number is 4111', true],
      ['user', 'Thanks, noted.', true],
    ]);
    expect(msgs[0]!.encrypted_message).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(msgs[1]!.sender_name).toBe('Ada Agent');
    expect(msgs.every((m) => m.chat_id === chat.id)).toBe(true);
  });

  it('accepts the reference client’s form (two backslashes before n) too', async () => {
    const sb = await startSpec01Sandbox();
    const keys = await enableEncryption(sb);
    await sb.seedChat({ encrypted: true, messages: [{ sender: 'visitor', text: 'secret' }] });
    const res = await decrypted(sb, keys.private_key.trimEnd().replace(/\n/g, '\\\\n'));
    expect(res.status).toBe(200);
    expect(res.body.results[0].messages.find((m: { type: string }) => m.type === 'msg').content).toBe('secret');
  });

  it('lists unencrypted chats of the room alongside, with plain content and encrypted_message null', async () => {
    const sb = await startSpec01Sandbox();
    const keys = await enableEncryption(sb);
    const plain = await sb.seedChat({ messages: [{ sender: 'visitor', text: 'plain words' }] });
    const res = await decrypted(sb, keys.private_key_one_line);
    expect(res.body.results[0]).toMatchObject({ id: plain.id, is_encrypted: false });
    expect(res.body.results[0].messages.find((m: { type: string }) => m.type === 'msg')).toMatchObject({
      content: 'plain words',
      is_encrypted: false,
      encrypted_message: null,
    });
  });

  it('count, limit (default 20), cursor pages newest first, and the created_at range', async () => {
    const sb = await startSpec01Sandbox();
    const keys = await enableEncryption(sb);
    const seeded: string[] = [];
    for (let i = 0; i < 23; i++) seeded.push((await sb.seedChat({ encrypted: i % 2 === 0, created_at: at(T0, i * 60) })).id);
    const newestFirst = [...seeded].reverse();

    const first = await decrypted(sb, keys.private_key_one_line);
    expect(first.body.count).toBe(23);
    expect(first.body.results.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(0, 20));
    const next = new URL(first.body.next);
    const second = await decrypted(sb, keys.private_key_one_line, next.search);
    expect(second.body.results.map((c: { id: string }) => c.id)).toEqual(newestFirst.slice(20));
    expect(second.body).toMatchObject({ count: 23, next: null });

    const small = await decrypted(sb, keys.private_key_one_line, '?limit=5');
    expect(small.body.results).toHaveLength(5);
    expect(new URL(small.body.next).searchParams.get('limit')).toBe('5');
    const ranged = await decrypted(sb, keys.private_key_one_line, `?created_at_after=${at(T0, 60)}&created_at_before=${at(T0, 180)}`);
    expect(ranged.body.count).toBe(3);
    expect(ranged.body.results.map((c: { id: string }) => c.id)).toEqual([seeded[3], seeded[2], seeded[1]]);
    for (const bad of ['?limit=0', '?limit=ten', '?created_at_after=soon']) {
      expect((await decrypted(sb, keys.private_key_one_line, bad)).status, bad).toBe(400);
    }
  });

  it('400 | key missing or invalid (absent, not a key, another organization’s key)', async () => {
    const sb = await startSpec01Sandbox();
    await enableEncryption(sb);
    await sb.seedChat({ encrypted: true, messages: [{ sender: 'visitor', text: 'x' }] });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const missing = await decrypted(sb, null);
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/X-PRIVATE-KEY/);
    expect((await decrypted(sb, 'not a key')).status).toBe(400);
    expect((await decrypted(sb, other.trimEnd().replace(/\n/g, '\\n'))).status).toBe(400);
  });

  it('403 | feature not enabled; 403 | no permission to the organization’s chats; 401; 404 organization or room', async () => {
    const sb = await startSpec01Sandbox();
    const notEnabled = await decrypted(sb, 'whatever');
    expect(notEnabled.status).toBe(403);
    expect(notEnabled.body.detail).toMatch(/not enabled/);
    const keys = await enableEncryption(sb);
    const noReports = await sb.addUser({}, { permissions: { reports: false } });
    const res = await sb.as(noReports, 'GET', sb.org(`/rooms/${sb.roomId}/decrypted-chats`), undefined, {
      headers: { 'x-private-key': keys.private_key_one_line },
    });
    expect(res.status).toBe(403);
    expect((await sb.call('GET', sb.org(`/rooms/${sb.roomId}/decrypted-chats`), undefined, { authorization: null })).status).toBe(401);
    expect((await decrypted(sb, keys.private_key_one_line, '', crypto.randomUUID())).status).toBe(404);
    const unknownOrg = await sb.call('GET', `/api/v5/orgs/${crypto.randomUUID()}/rooms/${sb.roomId}/decrypted-chats`);
    expect(unknownOrg.status).toBe(404);
  });

  it('never logs the private key (a capturing logger at trace level sees the request but not the key)', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const base = await startTestSandbox({ logger: pino({ level: 'trace' }, sink) });
    const keys = (await base.call('POST', `/_sandbox/organizations/${base.organizationId}/encryption`)).body as Keys;
    await base.call('POST', '/_sandbox/chats', { encrypted: true, messages: [{ sender: 'visitor', text: 'logged?' }] });
    const path = `/api/v5/orgs/${base.organizationId}/rooms/${base.roomId}/decrypted-chats`;
    const ok = await base.call('GET', path, undefined, { headers: { 'x-private-key': keys.private_key_one_line } });
    expect(ok.status).toBe(200);
    await base.call('GET', path, undefined, { headers: { 'x-private-key': `${keys.private_key_one_line}broken` } });
    const log = lines.join('');
    expect(log).toContain('decrypted-chats');
    const keyBody = keys.private_key.split('\n')[1]!;
    expect(log).not.toContain(keyBody);
    expect(log).not.toContain('logged?');
  });
});
