/**
 * Address headers as `MailAddress` lists: flattened groups, lower-case
 * addresses, decoded names, entries without an address dropped.
 *
 * mailparser does the RFC 5322 / RFC 2047 work for From, To, Cc and
 * Reply-To; Delivered-To and Return-Path hold a bare address (`<a@b>`,
 * `a@b`, or `<>` for the null sender) and are read here from the raw value.
 */
import type { AddressObject, EmailAddress } from 'mailparser';
import type { MailAddress } from './parsed-mail.ts';

function flatten(entries: readonly EmailAddress[], into: MailAddress[]): void {
  for (const entry of entries) {
    if (entry.group) {
      flatten(entry.group, into);
      continue;
    }
    const address = entry.address?.trim().toLowerCase();
    if (!address) continue;
    // Outlook writes 'Shop Support' <…> with single quotes, which RFC 5322 does not strip.
    const name = entry.name
      ?.replace(/\s+/g, ' ')
      .trim()
      .replace(/^'(.+)'$/, '$1');
    into.push(name && name.toLowerCase() !== address ? { address, name } : { address });
  }
}

/** The mailboxes of one parsed address header (mailparser gives one object, or an array for a repeated header). */
export function toMailAddresses(value: AddressObject | AddressObject[] | undefined): MailAddress[] {
  const into: MailAddress[] = [];
  for (const object of value === undefined ? [] : Array.isArray(value) ? value : [value]) flatten(object.value, into);
  return into;
}

/**
 * The address of a raw single-address header: `Return-Path: <a@b>`,
 * `Delivered-To: a@b`, `From: "Name" <a@b>`. `{ address: '' }` for `<>`;
 * undefined when there is nothing address-like.
 */
export function parseBareAddress(value: string | undefined): MailAddress | undefined {
  if (value === undefined) return undefined;
  const bracketed = /<([^<>]*)>/.exec(value);
  if (bracketed) {
    const inner = (bracketed[1] ?? '').trim().toLowerCase();
    if (inner === '') return { address: '' };
    return inner.includes('@') ? { address: inner } : undefined;
  }
  const token = /[^\s<>(),;:"]+@[^\s<>(),;:"]+/.exec(value);
  return token ? { address: token[0].toLowerCase() } : undefined;
}
