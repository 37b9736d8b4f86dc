/**
 * The WhatsApp Cloud API calls the connector makes, on graph-http.ts:
 *
 *   POST /{version}/{phone_number_id}/messages   {messaging_product: "whatsapp", to, type, …} → {messages: [{id: wamid}]}
 *   POST /{version}/{phone_number_id}/media      multipart: messaging_product, type, file       → {id}
 *   GET  /{version}/{media_id}                   → {url, mime_type, sha256, file_size, id}
 *   GET  <url>                                   the media's bytes (Bearer token)
 *
 * (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media). An answer without what it
 * promises is a `WhatsAppAnswerMalformedError`.
 */
import { z } from 'zod';
import { WhatsAppAnswerMalformedError } from './graph-errors.ts';
import type { GraphHttp } from './graph-http.ts';

/** One message as the messages endpoint takes it, without `messaging_product` and `to`. */
export type OutgoingMessage =
  | { type: 'text'; text: { body: string; preview_url?: boolean } }
  | { type: 'image'; image: { id: string } }
  | { type: 'document'; document: { id: string; filename: string } }
  | { type: 'template'; template: { name: string; language: { code: string } } };

const Sent = z.looseObject({ messages: z.array(z.looseObject({ id: z.string().min(1) })).min(1) });
const Uploaded = z.looseObject({ id: z.string().min(1) });
const MediaInfo = z.looseObject({
  url: z.url(),
  mime_type: z.string().optional(),
  file_size: z.union([z.number(), z.string()]).optional(),
});
export type MediaInfo = z.output<typeof MediaInfo>;

function parsed<T extends z.ZodType>(schema: T, answer: unknown, what: string): z.output<T> {
  const result = schema.safeParse(answer);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new WhatsAppAnswerMalformedError(`WhatsApp answered ${what} without what it promises${issue ? ` (${issue.path.join('.') || 'body'}: ${issue.message})` : ''}`);
  }
  return result.data;
}

export class CloudApi {
  readonly #http: GraphHttp;
  readonly #phoneNumberId: string;

  constructor(http: GraphHttp, phoneNumberId: string) {
    this.#http = http;
    this.#phoneNumberId = phoneNumberId;
  }

  /** Sends one message to the customer `to` (their wa_id); resolves with its wamid. */
  async send(to: string, message: OutgoingMessage, signal: AbortSignal): Promise<string> {
    const what = `sending a ${message.type} message`;
    const answer = await this.#http.call('POST', `/${this.#phoneNumberId}/messages`, { json: { messaging_product: 'whatsapp', recipient_type: 'individual', to, ...message } }, what, signal);
    return parsed(Sent, answer, what).messages[0]!.id;
  }

  /** Uploads a file for a later message; resolves with its media id. */
  async upload(file: { filename: string; contentType: string; content: Buffer }, signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', file.contentType);
    form.set('file', new Blob([new Uint8Array(file.content)], { type: file.contentType }), file.filename);
    const what = 'uploading a file';
    return parsed(Uploaded, await this.#http.call('POST', `/${this.#phoneNumberId}/media`, { form }, what, signal), what).id;
  }

  /** Where a customer's media can be downloaded, its type and size. */
  async mediaInfo(mediaId: string, signal: AbortSignal): Promise<MediaInfo> {
    const what = `reading media ${mediaId}`;
    return parsed(MediaInfo, await this.#http.call('GET', `/${encodeURIComponent(mediaId)}`, {}, what, signal), what);
  }

  /** The media's bytes from the URL `mediaInfo` gave, at most `maxBytes`. */
  download(info: MediaInfo, maxBytes: number, mediaId: string, signal: AbortSignal): Promise<{ content: Buffer; contentType: string }> {
    return this.#http.download(info.url, maxBytes, `downloading media ${mediaId}`, signal);
  }
}
