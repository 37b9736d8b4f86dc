/**
 * The records of the Zammad counterpart (users, groups, states, tickets,
 * articles, stored files, history) and how Zammad's REST API renders them,
 * after the reference's sample answers:
 *
 *   https://docs.zammad.org/en/latest/api/ticket/index.html          (a ticket; `expand=true` adds names)
 *   https://docs.zammad.org/en/latest/api/ticket/articles.html       (an article with `attachments: [{id, filename, size, preferences}]`)
 *   https://docs.zammad.org/en/latest/api/user.html                  (a user)
 *   https://docs.zammad.org/en/latest/api/ticket/states.html         (a state; `expand=true` adds `state_type`)
 *   https://docs.zammad.org/en/latest/api/intro.html                 ("Response Payloads (expand)")
 *
 * Times are UTC ISO 8601 with milliseconds; a stored file's `size` is a
 * string, as in Zammad's store.
 */
export type Role = 'Admin' | 'Agent' | 'Customer';

export interface ZUser {
  id: number;
  login: string;
  firstname: string;
  lastname: string;
  email: string;
  roles: Role[];
  /** Group id → access (`full`, `read`, `change`, `create`, `overview`). */
  groups: Record<number, string[]>;
  active: boolean;
  created_at: string;
  updated_at: string;
}

export interface ZGroup {
  id: number;
  name: string;
}

export interface ZState {
  id: number;
  name: string;
  state_type: 'new' | 'open' | 'pending reminder' | 'pending action' | 'closed' | 'merged' | 'removed';
  state_type_id: number;
  default_create: boolean;
  default_follow_up: boolean;
}

export interface ZStored {
  id: number;
  filename: string;
  data: Buffer;
  preferences: Record<string, string>;
}

export interface ZArticle {
  id: number;
  ticket_id: number;
  type: string;
  sender: 'Customer' | 'Agent' | 'System';
  internal: boolean;
  from: string;
  to: string;
  subject: string;
  body: string;
  content_type: string;
  created_by_id: number;
  updated_by_id: number;
  origin_by_id: number | null;
  created_at: string;
  updated_at: string;
  attachments: ZStored[];
}

/** What the search index holds of a ticket (taken `indexLagMs` after each change). */
export interface ZIndexed {
  /** When this version was written (the counterpart's clock, ms). */
  at: number;
  updated_at: string;
  group_id: number;
  state_id: number;
  title: string;
}

export interface ZTicket {
  id: number;
  number: string;
  title: string;
  group_id: number;
  state_id: number;
  priority_id: number;
  customer_id: number;
  owner_id: number;
  created_by_id: number;
  updated_by_id: number;
  created_at: string;
  updated_at: string;
  /** Every version the index will hold, oldest first. */
  versions: ZIndexed[];
}

export interface ZHistory {
  id: number;
  o_id: number;
  object: 'Ticket';
  type: 'updated';
  attribute: 'state';
  id_from: number;
  id_to: number;
  value_from: string;
  value_to: string;
  created_by_id: number;
  created_at: string;
}

export const userJson = (u: ZUser, expand: boolean, groups: readonly ZGroup[]) => ({
  id: u.id,
  login: u.login,
  firstname: u.firstname,
  lastname: u.lastname,
  email: u.email,
  active: u.active,
  verified: false,
  organization_id: null,
  role_ids: u.roles.map((r) => ({ Admin: 1, Agent: 2, Customer: 3 })[r]),
  group_ids: Object.fromEntries(Object.entries(u.groups)),
  updated_by_id: 1,
  created_by_id: 1,
  created_at: u.created_at,
  updated_at: u.updated_at,
  ...(expand ? { roles: u.roles, groups: Object.fromEntries(Object.entries(u.groups).map(([id, access]) => [groups.find((g) => g.id === Number(id))?.name ?? id, access])) } : {}),
});

export function ticketJson(t: ZTicket, names?: { group: string; state: string; customer: string; owner: string }, articleIds?: number[]) {
  return {
    id: t.id,
    group_id: t.group_id,
    priority_id: t.priority_id,
    state_id: t.state_id,
    organization_id: null,
    number: t.number,
    title: t.title,
    owner_id: t.owner_id,
    customer_id: t.customer_id,
    note: null,
    close_at: null,
    pending_time: null,
    type: null,
    preferences: {},
    updated_by_id: t.updated_by_id,
    created_by_id: t.created_by_id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    ...(articleIds ? { article_ids: articleIds, article_count: articleIds.length } : {}),
    ...(names ? { group: names.group, state: names.state, priority: '2 normal', customer: names.customer, owner: names.owner } : {}),
  };
}

export const storedJson = (s: ZStored) => ({ id: s.id, filename: s.filename, size: String(s.data.length), preferences: s.preferences });

export const articleJson = (a: ZArticle, createdBy: string) => ({
  id: a.id,
  ticket_id: a.ticket_id,
  type: a.type,
  sender: a.sender,
  from: a.from,
  to: a.to,
  cc: '',
  subject: a.subject,
  reply_to: null,
  message_id: null,
  body: a.body,
  content_type: a.content_type,
  internal: a.internal,
  preferences: {},
  origin_by_id: a.origin_by_id,
  updated_by_id: a.updated_by_id,
  created_by_id: a.created_by_id,
  created_by: createdBy,
  updated_by: createdBy,
  created_at: a.created_at,
  updated_at: a.updated_at,
  attachments: a.attachments.map(storedJson),
});

export const stateJson = (s: ZState, expand: boolean) => ({
  id: s.id,
  state_type_id: s.state_type_id,
  name: s.name,
  next_state_id: null,
  ignore_escalation: s.state_type !== 'new' && s.state_type !== 'open',
  default_create: s.default_create,
  default_follow_up: s.default_follow_up,
  note: null,
  active: s.state_type !== 'removed',
  ...(expand ? { state_type: s.state_type } : {}),
});

export const historyJson = (h: ZHistory) => ({ ...h });
