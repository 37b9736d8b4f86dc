/**
 * The parts of Redmine's REST answers the adapter reads, parsed leniently
 * (unknown fields kept). A journal without `private_notes` is taken as
 * private, so that nothing is posted by mistake.
 */
import { z } from 'zod';

export const Person = z.looseObject({ id: z.number(), name: z.string().default('') });
export const Detail = z.looseObject({ property: z.string(), name: z.string(), old_value: z.string().nullish(), new_value: z.string().nullish() });
export const Journal = z.looseObject({
  id: z.number(),
  user: Person,
  notes: z.string().nullish(),
  created_on: z.string(),
  /** Absent (an old or odd Redmine): taken as private, so that nothing is posted by mistake. */
  private_notes: z.boolean().default(true),
  details: z.array(Detail).default([]),
});
export const Attachment = z.looseObject({
  id: z.number(),
  filename: z.string(),
  filesize: z.number().default(0),
  content_type: z.string().nullish(),
  content_url: z.string().optional(),
  created_on: z.string().optional(),
});
export const Issue = z.looseObject({
  id: z.number(),
  subject: z.string().default(''),
  description: z.string().nullish(),
  author: Person,
  status: z.looseObject({ id: z.number(), is_closed: z.boolean().optional() }),
  created_on: z.string(),
  updated_on: z.string(),
  is_private: z.boolean().default(false),
  journals: z.array(Journal).optional(),
  attachments: z.array(Attachment).optional(),
});
export const IssueList = z.looseObject({
  issues: z.array(z.looseObject({ id: z.number(), updated_on: z.string() })),
  total_count: z.number().optional(),
});
export const Statuses = z.looseObject({ issue_statuses: z.array(z.looseObject({ id: z.number(), is_closed: z.boolean().default(false) })) });
export const Trackers = z.looseObject({ trackers: z.array(z.looseObject({ id: z.number(), name: z.string() })) });
export const CurrentUser = z.looseObject({ user: z.looseObject({ id: z.number(), login: z.string().optional(), firstname: z.string().default(''), lastname: z.string().default('') }) });

export const CurrentUserMemberships = z.looseObject({
  user: z.looseObject({
    admin: z.boolean().optional(),
    memberships: z.array(z.looseObject({ project: z.looseObject({ id: z.number() }).optional(), roles: z.array(z.looseObject({ id: z.number() })).default([]) })).default([]),
  }),
});
export const Project = z.looseObject({ project: z.looseObject({ id: z.number() }) });
export const Role = z.looseObject({ role: z.looseObject({ permissions: z.array(z.string()).default([]) }) });
export const Upload = z.looseObject({ upload: z.looseObject({ token: z.string().min(1) }) });
