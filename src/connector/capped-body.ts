/**
 * A response body read whole but never past a cap: refused by its announced
 * Content-Length before a byte is read, or as the bytes arrive — so no more
 * than `maxBytes` is ever held. For a connector's downloads (a ticket's file,
 * a chat app's media); `tooLarge` makes the connector's own error, with its
 * code and words (`announced`: the Content-Length when that was what refused).
 */
export async function readCapped(response: Response, maxBytes: number, tooLarge: (announced: number | undefined) => Error): Promise<Buffer> {
  const announced = Number(response.headers.get('content-length') ?? '');
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(announced);
  }
  if (response.body === null) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(undefined);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}
