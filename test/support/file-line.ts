/**
 * The line a connector puts under a message for each file it kept,
 * `[attachment: <name>, <size>] <link>`, checked end to end: its text, and
 * that its link serves the file's bytes with its content type.
 */
import { expect } from 'vitest';

const LINK = / (http\S+)$/;

/** Checks `line` against `expected` (its link written ` <link>`) and what the link serves; returns the link. */
export async function expectFileLine(line: string, expected: string, bytes: Buffer, contentType: string): Promise<string> {
  expect(line.replace(LINK, ' <link>')).toBe(expected);
  const link = LINK.exec(line)![1]!;
  const fetched = await fetch(link);
  expect([fetched.status, fetched.headers.get('content-type')]).toEqual([200, contentType]);
  expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
  return link;
}
