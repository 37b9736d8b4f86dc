/** Shared by the unified messaging session suites: reading a chat, its control view and messages, and adding a reply suggestion. */
import { expect } from 'vitest';
import type { TestSandbox } from './support.ts';

export async function chatOf(sb: TestSandbox, chatId: string) {
  return (await sb.call('GET', `/api/v5/orgs/${sb.organizationId}/owned_chats/${chatId}`)).body;
}

export async function controlChat(sb: TestSandbox, chatId: string) {
  return (await sb.call('GET', `/_sandbox/chats/${chatId}`)).body;
}

export async function messagesOf(sb: TestSandbox, chatId: string) {
  return (await sb.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as Record<string, unknown>[];
}

export async function suggestionIn(sb: TestSandbox, chatId: string): Promise<string> {
  const res = await sb.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'Try turning it off and on.' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
