/**
 * A WhatsApp Business number on the Cloud API for tests: the counterpart of
 * the `whatsapp` connector, real HTTP servers on port 0 (the Graph API and
 * its media host), in memory, written from Meta's published references:
 *
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages (sending; the answer's wamid)
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/reference/media (upload, URL, download with the token)
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components (notifications: messages, statuses)
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes (codes, titles, HTTP statuses)
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-messages (the 24-hour window, templates)
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/overview (throughput, the pair rate limit)
 * - https://developers.facebook.com/docs/graph-api/webhooks/getting-started (verification, X-Hub-Signature-256)
 * - https://developers.facebook.com/docs/graph-api/guides/error-handling (the error object)
 *
 * One business number (`phoneNumberId`), its token, app secret and verify
 * token. The test-facing side writes as customers do — `customerSays`,
 * `customerSendsDocument`, … push signed notifications to the subscribed
 * callback URL and open the customer's 24-hour window — moves a customer's
 * window (`advanceWindow`), and inspects what the business sent (`sent`).
 * For each message sent, the status callbacks of `statusFlow` follow
 * (sent → delivered → read by default; `[]` leaves them to `pushStatus`).
 */
import { randomBytes } from 'node:crypto';
import { startGraphServers, type Failure, type Graph, type RecordedRequest } from './graph-server.ts';
import { WebhookPush, type PushedNotification, type VerifyAnswer } from './webhook-push.ts';
import { WhatsAppStore, type Limits, type SentMessage } from './whatsapp-store.ts';

export type StatusName = 'sent' | 'delivered' | 'read' | 'failed';

export interface WhatsAppOptions {
  /** Default: the documented throughput (80 a second) and pair rate (45 in 6 s). */
  limits?: Partial<Limits>;
  /** The statuses pushed after each message the business sends. Default sent, delivered, read. */
  statusFlow?: readonly StatusName[];
  /** Approved templates. Default `reopen_conversation` in en_US. */
  templates?: readonly { name: string; language: string }[];
}

export interface CustomerOptions {
  /** The profile name. Default `Customer <last 4 digits>`, or the one given before. */
  name?: string;
  /** The number the notification is for (another number's is not ours). Default this number. */
  phoneNumberId?: string;
  /** Signs with this secret instead of the app secret. */
  secret?: string;
}

export interface CustomerFile {
  filename?: string;
  contentType: string;
  content: Buffer;
  caption?: string;
}

export interface TestWhatsApp {
  url: string;
  mediaHostUrl: string;
  phoneNumberId: string;
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  store: WhatsAppStore;
  requests: RecordedRequest[];
  failures: Failure[];
  /** Every notification pushed, with the callback's answer. */
  pushed: PushedNotification[];
  /** Media ids downloaded from the media host. */
  mediaDownloads: string[];
  /** The connector's own settings keys for this number (api_url pointing here), with `extra` over them. */
  settings(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Meta's verification of `callbackUrl` with the right token; subscribes it when answered. */
  subscribe(callbackUrl: string): Promise<VerifyAnswer>;
  /** The verification request with any token (subscribes only when answered right). */
  verify(callbackUrl: string, token: string): Promise<VerifyAnswer>;
  customerSays(waId: string, text: string, options?: CustomerOptions): Promise<{ wamid: string; pushed: PushedNotification }>;
  customerSendsDocument(waId: string, file: CustomerFile, options?: CustomerOptions): Promise<{ wamid: string; mediaId: string; pushed: PushedNotification }>;
  customerSendsImage(waId: string, file: CustomerFile, options?: CustomerOptions): Promise<{ wamid: string; mediaId: string; pushed: PushedNotification }>;
  /** Any message type with its part (`location`, `reaction`, `unsupported`, …). */
  customerSends(waId: string, type: string, part: unknown, options?: CustomerOptions): Promise<{ wamid: string; pushed: PushedNotification }>;
  /** A status callback for a message the business sent. */
  pushStatus(wamid: string, status: StatusName, errors?: readonly { code: number; title: string; details?: string }[]): Promise<PushedNotification>;
  /** A notification sent again, the same bytes (Meta's retry). */
  resend(notification: PushedNotification): Promise<PushedNotification>;
  /** The customer wrote to the number (their window opens) without a notification: as for a number no callback is subscribed for. */
  openWindow(waId: string): void;
  /** Moves the customer's last message `hours` into the past (their 24-hour window with it). */
  advanceWindow(waId: string, hours: number): void;
  /** What the business sent, oldest first. */
  sent: SentMessage[];
  sentTo(waId: string): SentMessage[];
  /** Resolves once every notification queued so far (status callbacks too) was answered. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startWhatsApp(options: WhatsAppOptions = {}): Promise<TestWhatsApp> {
  const store = new WhatsAppStore(options.limits);
  for (const t of options.templates ?? [{ name: 'reopen_conversation', language: 'en_US' }]) store.templates.add(`${t.name} ${t.language}`);
  const phoneNumberId = '106540352242922';
  const accessToken = `EAAG${randomBytes(48).toString('base64url')}`;
  const appSecret = randomBytes(16).toString('hex');
  const verifyToken = `verify-${randomBytes(8).toString('hex')}`;
  const push = new WebhookPush(appSecret);
  const names = new Map<string, string>();
  const statusFlow = options.statusFlow ?? ['sent', 'delivered', 'read'];

  const notification = (value: Record<string, unknown>, numberId = phoneNumberId) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550783881', phone_number_id: numberId }, ...value }, field: 'messages' }] }],
  });
  const statusValue = (wamid: string, status: StatusName, to: string, at: number, errors?: readonly { code: number; title: string; details?: string }[]) => ({
    statuses: [{
      id: wamid, status, timestamp: String(at), recipient_id: to,
      ...(status === 'sent' || status === 'delivered' ? { conversation: { id: 'c0ffee', origin: { type: 'service' } }, pricing: { billable: true, pricing_model: 'PMP', category: 'service' } } : {}),
      ...(errors ? { errors: errors.map((e) => ({ code: e.code, title: e.title, message: e.title, ...(e.details ? { error_data: { details: e.details } } : {}) })) } : {}),
    }],
  });
  const graph: Omit<Graph, 'mediaHostUrl'> = {
    store, phoneNumberId, accessToken, mediaDownloads: [],
    onSent(message) {
      if (push.callbackUrl === undefined) return;
      const at = Math.floor(message.at / 1000);
      for (const [i, status] of statusFlow.entries()) {
        const errors = status === 'failed' ? [{ code: 131026, title: 'Message undeliverable', details: 'Message Undeliverable.' }] : undefined;
        void push.send(notification(statusValue(message.wamid, status, message.to, at + i, errors))).catch(() => undefined);
      }
    },
  };
  const servers = await startGraphServers(graph);

  const customerMessage = async (waId: string, type: string, part: unknown, o: CustomerOptions = {}) => {
    const name = o.name ?? names.get(waId) ?? `Customer ${waId.slice(-4)}`;
    names.set(waId, name);
    const ours = (o.phoneNumberId ?? phoneNumberId) === phoneNumberId;
    if (ours) store.lastInbound.set(waId, Date.now());
    const wamid = store.wamid();
    const message = { from: waId, id: wamid, timestamp: String(Math.floor(Date.now() / 1000)), type, [type]: part };
    const body = notification({ contacts: [{ profile: { name }, wa_id: waId }], messages: [message] }, o.phoneNumberId);
    const pushed = await push.send(body, o.secret === undefined ? {} : { secret: o.secret });
    return { wamid, pushed };
  };
  const customerMedia = async (type: 'document' | 'image', waId: string, file: CustomerFile, o?: CustomerOptions) => {
    const media = store.addMedia(file.content, file.contentType, 'customer', file.filename);
    const part = { mime_type: file.contentType, sha256: media.sha256, id: media.id, ...(file.caption ? { caption: file.caption } : {}), ...(type === 'document' && file.filename ? { filename: file.filename } : {}) };
    return { ...(await customerMessage(waId, type, part, o)), mediaId: media.id };
  };

  return {
    url: servers.url,
    mediaHostUrl: servers.mediaHostUrl,
    phoneNumberId, accessToken, appSecret, verifyToken, store,
    requests: servers.requests,
    failures: servers.failures,
    pushed: push.pushed,
    mediaDownloads: graph.mediaDownloads,
    settings: (extra = {}) => ({ phone_number_id: phoneNumberId, access_token: accessToken, app_secret: appSecret, verify_token: verifyToken, api_url: servers.url, ...extra }),
    async subscribe(callbackUrl) {
      const answer = await push.verify(callbackUrl, verifyToken);
      if (push.callbackUrl !== callbackUrl) throw new Error(`the callback did not pass verification: ${answer.status} ${answer.body}`);
      return answer;
    },
    verify: (callbackUrl, token) => push.verify(callbackUrl, token),
    customerSays: (waId, text, o) => customerMessage(waId, 'text', { body: text }, o),
    customerSendsDocument: (waId, file, o) => customerMedia('document', waId, file, o),
    customerSendsImage: (waId, file, o) => customerMedia('image', waId, file, o),
    customerSends: (waId, type, part, o) => customerMessage(waId, type, part, o),
    pushStatus(wamid, status, errors) {
      const to = store.sent.find((m) => m.wamid === wamid)?.to ?? '0';
      return push.send(notification(statusValue(wamid, status, to, Math.floor(Date.now() / 1000), errors)));
    },
    resend: (notification) => push.resend(notification),
    openWindow: (waId) => void store.lastInbound.set(waId, Date.now()),
    advanceWindow(waId, hours) {
      const last = store.lastInbound.get(waId);
      if (last !== undefined) store.lastInbound.set(waId, last - hours * 3_600_000);
    },
    sent: store.sent,
    sentTo: (waId) => store.sent.filter((m) => m.to === waId),
    idle: () => push.idle(),
    close: async () => {
      await push.idle();
      await servers.close();
    },
  };
}
