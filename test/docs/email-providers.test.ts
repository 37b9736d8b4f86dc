/**
 * docs/email-providers.md: every settings example in it is a valid e-mail
 * connector (built-in OAuth2 for IMAP and SMTP), so a reader who copies one
 * gets past `threadgate config check`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EmailConnectorConfig } from '../../connectors/email/config.ts';

const doc = readFileSync(join(import.meta.dirname, '../../docs/email-providers.md'), 'utf8');
const examples = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)]
  .map((m) => parse(m[1]!.replace(/\$\{(\w+)\}/g, 'value-of-$1')) as { connectors?: Record<string, unknown>[] })
  .flatMap((block) => block?.connectors ?? [])
  .filter((c) => c.type === 'email');

describe('docs/email-providers.md', () => {
  it('has settings examples for Google and Microsoft that the e-mail connector accepts', () => {
    const providers = examples.map((c) => ((c.imap as { auth?: { provider?: string } }).auth?.provider));
    expect(providers).toEqual(expect.arrayContaining(['google', 'microsoft']));
    for (const { name, type, ...own } of examples) {
      const parsed = EmailConnectorConfig.safeParse(own);
      expect(parsed.error?.issues ?? [], `the example of ${String(name)} (${String(type)})`).toEqual([]);
    }
  });
});
