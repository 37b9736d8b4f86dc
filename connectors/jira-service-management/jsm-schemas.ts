/**
 * The shapes of Jira Cloud's answers the adapter reads. Only the fields used
 * are checked. The platform API (`/rest/api/3`) writes times as
 * `2026-11-29T14:05:09.854+1100` (milliseconds, the user's offset); the
 * Service Management API (`/rest/servicedeskapi`) as a `DateDTO` whose
 * `epochMillis` is exact; its lists are pages of `values` with
 * `start`, `size` and `isLastPage`.
 */
import { z } from 'zod';

const id = z.union([z.string().regex(/^\d+$/), z.number().int()]).transform(String);

/** `GET /rest/api/3/myself`. */
export const Myself = z.object({
  accountId: z.string().min(1),
  displayName: z.string().nullish(),
  emailAddress: z.string().nullish(),
  timeZone: z.string().nullish(),
});

/** `GET /rest/servicedeskapi/servicedesk/{id}`. */
export const ServiceDesk = z.object({ id, projectId: id, projectKey: z.string().min(1), projectName: z.string().nullish() });

/** `GET /rest/api/3/search/jql` with `fields=updated`. */
export const SearchPage = z.object({
  issues: z.array(z.object({ id, key: z.string(), fields: z.object({ updated: z.string() }) })).default([]),
  nextPageToken: z.string().nullish(),
  isLast: z.boolean().optional(),
});

/** `GET /rest/api/3/issue/{id}` with `fields=updated,summary,resolution,resolutiondate,status,project`. */
export const Issue = z.object({
  id,
  key: z.string(),
  fields: z.object({
    updated: z.string(),
    summary: z.string().nullish(),
    resolution: z.object({ name: z.string().nullish() }).nullish(),
    resolutiondate: z.string().nullish(),
    status: z.object({ name: z.string().nullish(), statusCategory: z.object({ key: z.string() }).nullish() }).nullish(),
    project: z.object({ id, key: z.string() }),
  }),
});

export const DateDTO = z.object({ epochMillis: z.number().int() });

export const UserDTO = z.object({ accountId: z.string().nullish(), displayName: z.string().nullish(), emailAddress: z.string().nullish() });

/** A page of a Service Management list. */
export const paged = <T extends z.ZodType>(item: T) =>
  z.object({ start: z.number().int().default(0), size: z.number().int(), isLastPage: z.boolean().default(true), values: z.array(item).default([]) });

export const AttachmentDTO = z.object({
  filename: z.string(),
  size: z.number().int().nonnegative().default(0),
  mimeType: z.string().nullish(),
  created: DateDTO.nullish(),
  author: UserDTO.nullish(),
  _links: z.object({ jiraRest: z.string().nullish(), content: z.string().nullish() }).default({}),
});

export const CommentDTO = z.object({
  id,
  body: z.string().nullish(),
  public: z.boolean(),
  author: UserDTO.nullish(),
  created: DateDTO,
  attachments: paged(AttachmentDTO).nullish(),
});

export const StatusDTO = z.object({ status: z.string().nullish(), statusCategory: z.string().nullish(), statusDate: DateDTO });

/** `GET /rest/servicedeskapi/request/{id}`. */
export const CustomerRequest = z.object({
  issueId: id,
  issueKey: z.string(),
  serviceDeskId: id.nullish(),
  createdDate: DateDTO,
  reporter: UserDTO.nullish(),
  requestFieldValues: z.array(z.object({ fieldId: z.string(), value: z.unknown().optional() })).default([]),
  _links: z.object({ agent: z.string().nullish(), web: z.string().nullish() }).default({}),
});

/** `POST …/attachTemporaryFile`. */
export const TemporaryFiles = z.object({ temporaryAttachments: z.array(z.object({ temporaryAttachmentId: z.string().min(1), fileName: z.string().nullish() })).min(1) });

/** `POST …/comment` answers the comment; `POST …/attachment` answers `{ comment, attachments }`. */
export const CreatedComment = z.object({ id });
export const CreatedAttachments = z.object({ comment: CreatedComment.nullish() });

export type AttachmentRow = z.output<typeof AttachmentDTO>;
export type CommentRow = z.output<typeof CommentDTO>;
export type StatusRow = z.output<typeof StatusDTO>;
export type IssueRow = z.output<typeof Issue>;
export type RequestRow = z.output<typeof CustomerRequest>;
