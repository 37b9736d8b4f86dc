/**
 * The ticket seam, published as `threadgate/ticket`: what a ticket adapter
 * written outside the repository builds on — the `TicketAdapter` interface
 * and its model, the errors it throws, the settings keys every ticket
 * connector shares, and `ticketConnectorInstance`, which turns an adapter
 * into a connector instance (poller, note writer, health), with
 * `withTicketWebhook` for a system that can call a webhook. Its contract
 * suite is `ticketAdapterContract` of `threadgate/testing`.
 */
export {
  TicketAttachmentRefusedError,
  TicketAttachmentTooLargeError,
  TicketAttachmentUnavailableError,
  TicketSystemError,
  type ChangeList,
  type Ticket,
  type TicketAdapter,
  type TicketAttachment,
  type TicketChange,
  type TicketEntry,
  type TicketPerson,
  type TicketUpload,
} from './ticket-adapter.ts';
export { ticketConnectorInstance, type TicketConnectorInstance, type TicketConnectorOptions } from './ticket-connector.ts';
export { jsonBody, numericTicketId, withTicketWebhook, type TicketWebhookOptions } from './ticket-webhook.ts';
export { attachmentSettings, DEFAULT_POLL_SECONDS, DEFAULT_TIMEOUT_MS, pollSeconds, systemUrl, timeoutMs } from './ticket-settings.ts';
export type { FileLimits } from './kept-files.ts';
export { FILE_TIMEOUT_MS, parseAnswer, readCapped, shortAnswer, TicketHttp, type DownloadOptions, type Query, type RequestBody, type TicketHttpOptions, type TicketResponse } from './ticket-http.ts';
