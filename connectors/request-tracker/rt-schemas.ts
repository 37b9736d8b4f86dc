/**
 * The shapes of REST2's answers the adapter reads (RT 5.0). Only the fields
 * used are checked; ids come as numbers on single records and as strings in
 * collections, so both are taken. Times are UTC with whole seconds
 * (`2026-11-29T03:01:54Z`).
 */
import { z } from 'zod';

const id = z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(String);
/** A reference to another record: `{ type: 'user', id: 'ann' }` (users by login). */
const ref = z.object({ id: z.union([z.string(), z.number()]).transform(String) });

export const User = z.object({
  id: z.number().int().optional(),
  Name: z.string(),
  RealName: z.string().nullish(),
  EmailAddress: z.string().nullish(),
  _hyperlinks: z.array(z.object({ ref: z.string(), id: z.unknown().optional() })).default([]),
});

export const Queue = z.object({ id: z.number().int(), Name: z.string() });

export const TicketList = z.object({
  count: z.number().int(),
  items: z.array(z.object({ id, LastUpdated: z.string() })),
});

export const RtTicket = z.object({
  id: z.number().int(),
  Subject: z.string().nullish(),
  Status: z.string(),
  Created: z.string(),
  LastUpdated: z.string(),
  Queue: ref,
  Creator: ref,
  Requestor: z.array(ref).default([]),
});

export const TransactionList = z.object({
  count: z.number().int(),
  items: z.array(
    z.object({
      id,
      Type: z.string(),
      Creator: ref,
      Created: z.string(),
      ObjectId: id.optional(),
      Field: z.string().nullish(),
      OldValue: z.string().nullish(),
      NewValue: z.string().nullish(),
    }),
  ),
});

export const PartList = z.object({
  count: z.number().int(),
  items: z.array(
    z.object({
      id,
      ContentType: z.string().nullish(),
      Filename: z.string().nullish(),
      ContentLength: z.union([z.string(), z.number()]).nullish(),
    }),
  ),
});

/** `GET /attachment/:id`: `Content` is base64 (null for a multipart container). */
export const Part = z.object({ id: z.number().int(), Content: z.string().nullable(), ContentType: z.string().nullish() });

export type RtTransaction = z.output<typeof TransactionList>['items'][number];
export type RtPartRow = z.output<typeof PartList>['items'][number];
