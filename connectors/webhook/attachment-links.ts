/**
 * An agent's files in the outbound payload as links the receiving system can
 * follow: each file or image of `message.attachments` is fetched from the
 * platform (`ctx.attachments`) and kept in the gateway's file store
 * (`ctx.files`), and the payload names the gateway's signed link instead of
 * the platform's address —
 *
 *   {"type": "file", "name": "invoice.pdf", "size": 24576, "content_type": "application/pdf",
 *    "url": "https://gw.example.com/files/…?e=…&s=…"}
 *
 * A file over the fetch limit, or gone at the platform, stays as the platform
 * sent it, with `"error": "TG_ATTACHMENT_TOO_LARGE"` (or
 * `TG_ATTACHMENT_UNAVAILABLE`; `TG_ATTACHMENT_HOST_REFUSED` for one on a host
 * the gateway may not fetch from), and the reply goes out (it is never
 * dead-lettered for its file); an attachment type the gateway does not know
 * is passed on as it came. A file that cannot be fetched for now fails the
 * attempt, which is retried. Each attempt keeps its files anew: a retried
 * delivery may link new copies, and the old ones expire with their links.
 */
import { AttachmentTooLargeError, knownAttachments, unfetchableReason, type ConnectorContext } from '../../src/connector/api.ts';

export async function linkedAttachments(list: readonly unknown[], ctx: Pick<ConnectorContext, 'attachments' | 'files'>, signal?: AbortSignal): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const item of list) {
    const [known] = knownAttachments([item]);
    if (known === undefined) {
      out.push(item);
      continue;
    }
    try {
      const file = await ctx.attachments.fetch(known, signal ? { signal } : {});
      const kept = await ctx.files.put(file);
      out.push({ type: known.type, name: file.filename, size: kept.size, content_type: file.contentType, url: kept.url });
    } catch (err) {
      // Too large, gone at the platform for good (404, 403) or on a host the gateway may not fetch from: passed on
      // as sent, with why; the reply still goes.
      if (!(err instanceof AttachmentTooLargeError) && unfetchableReason(err) === undefined) throw err;
      out.push({ ...known, error: (err as { code: string }).code });
    }
  }
  return out;
}
