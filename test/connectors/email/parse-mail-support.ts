/** Shared by the parseMail suites: raw mail from header and body lines, and the derived-id pattern. */

export const DERIVED_ID = /^<[0-9a-f]{64}@threadgate\.invalid>$/;

/** A raw mail from header lines and body lines, joined with `eol`. */
export function mail(headerLines: string[], bodyLines: string[], eol = '\r\n'): Buffer {
  return Buffer.from([...headerLines, '', ...bodyLines].join(eol));
}

export const basic = (...extra: string[]) => [
  'From: Anna <Anna@Example.com>',
  'To: support@shop.example',
  'Subject: Hello',
  'Date: Mon, 4 Mar 2024 10:00:00 +0100',
  'Message-ID: <a1@example.com>',
  ...extra,
];
