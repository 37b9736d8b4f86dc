/**
 * Shared by the mail corpus suite and its expectation tables: where the
 * fixtures are (test/fixtures/mail/*.eml), what an expectation holds, and
 * how a fixture is read and parsed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMail, type ParsedMail } from '../../../connectors/email/parse-mail.ts';
import type { SkipCode } from '../../../connectors/email/parsed-mail.ts';

export const FIXTURES = join(import.meta.dirname, '../../fixtures/mail');
export const OWN_HEADER = 'X-Threadgate-Connector';
export const DERIVED_ID = /^<[0-9a-f]{64}@threadgate\.invalid>$/;

export interface Expected {
  file: string;
  subject: string;
  /** The From address, or null for a mail without one. */
  from: string | null;
  /** Substrings the body must hold. */
  body?: string[];
  /** Quoted history and signatures: in the full text, not in the body. */
  stripped?: string[];
  /** Substrings the body must not hold (markup, mojibake, inline images). */
  notInBody?: string[];
  /** The `[attachment: …]` lines of the body, in order. */
  attachments?: string[];
  skip?: SkipCode;
  /** The mail has no Message-ID of its own. */
  derivedId?: boolean;
  /** In-Reply-To and References as threading must see them. */
  threading?: { inReplyTo: string[]; references: string[] };
}

export const fixtureFiles = readdirSync(FIXTURES).filter((name) => name.endsWith('.eml')).sort();
export const read = (file: string) => readFileSync(join(FIXTURES, file));
export const parse = (file: string) => parseMail(read(file), { ownHeaderName: OWN_HEADER });
export const attachmentLines = (mail: ParsedMail) => mail.body.split('\n').filter((line) => line.startsWith('[attachment: '));
