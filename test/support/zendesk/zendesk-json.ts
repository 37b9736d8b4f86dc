/**
 * The counterpart's records as Zendesk's JSON, with the fields its reference
 * pages list (tickets, ticket comments, ticket audits, attachments, users);
 * times in ISO 8601 to the second, ids as numbers.
 *
 * An attachment's `content_url` is under the account
 * (`/attachments/token/<token>/?name=…`), which answers with a redirect to
 * the file on another host (zendesk-files-host.ts), as Zendesk's does.
 */
import type { ZdAudit, ZdComment, ZdFile, ZdTicket, ZdUser, ZendeskStore } from './zendesk-store.ts';

export const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const via = { channel: 'api', source: { from: {}, to: {}, rel: null } };
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class ZendeskJson {
  readonly #store: ZendeskStore;
  readonly #root: string;

  constructor(store: ZendeskStore, root: string) {
    this.#store = store;
    this.#root = root;
  }

  user(u: ZdUser) {
    return {
      id: u.id,
      url: `${this.#root}/api/v2/users/${u.id}.json`,
      name: u.name,
      email: u.email,
      role: u.role,
      role_type: null,
      active: true,
      verified: true,
      suspended: false,
      locale: 'en-US',
      time_zone: 'UTC',
      organization_id: null,
      default_group_id: null,
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    };
  }

  /** `/users/me` for a request it cannot authenticate: Zendesk answers the anonymous user. */
  anonymous() {
    return { id: null, url: null, name: 'Anonymous user', email: 'invalid@example.com', role: 'end-user', active: true, verified: false, locale: 'en-US', time_zone: 'UTC' };
  }

  attachment(f: ZdFile) {
    const content_url = `${this.#root}/attachments/token/${f.token}/?name=${encodeURIComponent(f.file_name)}`;
    return {
      url: `${this.#root}/api/v2/attachments/${f.id}.json`,
      id: f.id,
      file_name: f.file_name,
      content_url,
      mapped_content_url: content_url,
      content_type: f.content_type,
      size: f.content.length,
      width: null,
      height: null,
      inline: false,
      deleted: f.deleted,
      malware_access_override: false,
      malware_scan_result: 'malware_not_found',
      thumbnails: [],
    };
  }

  comment(c: ZdComment) {
    return {
      id: c.id,
      type: 'Comment',
      author_id: c.author_id,
      body: c.body,
      html_body: `<div class="zd-comment" dir="auto"><p dir="auto">${escape(c.body).replace(/\n/g, '<br>')}</p></div>`,
      plain_body: c.body,
      public: c.public,
      attachments: c.fileIds.map((id) => this.attachment(this.#store.files.get(id)!)),
      audit_id: c.audit_id,
      via,
      created_at: iso(c.created_at),
      metadata: { system: {}, custom: {} },
    };
  }

  audit(a: ZdAudit) {
    const events = a.events.map((e) => {
      if (e.type !== 'Comment') return e;
      const { via: _via, created_at: _at, metadata: _meta, ...comment } = this.comment(this.#store.comments.get(e.id)!);
      return comment;
    });
    return { id: a.id, ticket_id: a.ticket_id, created_at: iso(a.created_at), author_id: a.author_id, metadata: { system: {}, custom: {} }, via, events };
  }

  /** A ticket; the incremental export adds its `generated_timestamp`. */
  ticket(t: ZdTicket, options: { generated?: boolean } = {}) {
    const comments = t.commentIds.map((id) => this.#store.comments.get(id)!);
    return {
      url: `${this.#root}/api/v2/tickets/${t.id}.json`,
      id: t.id,
      external_id: null,
      via,
      created_at: iso(t.created_at),
      updated_at: iso(t.updated_at),
      ...(options.generated ? { generated_timestamp: t.generated_timestamp } : {}),
      type: null,
      subject: t.subject,
      raw_subject: t.subject,
      description: comments[0]?.body ?? '',
      priority: null,
      status: t.status,
      recipient: null,
      requester_id: t.requester_id,
      submitter_id: t.submitter_id,
      assignee_id: null,
      organization_id: null,
      group_id: t.group_id,
      collaborator_ids: [],
      follower_ids: [],
      email_cc_ids: [],
      has_incidents: false,
      is_public: comments.some((c) => c.public),
      due_at: null,
      tags: [],
      custom_fields: [],
      satisfaction_rating: null,
      brand_id: t.brand_id,
      allow_channelback: false,
      allow_attachments: true,
      from_messaging_channel: false,
    };
  }
}
