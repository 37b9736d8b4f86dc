/**
 * Reading a Server-Sent Events stream (the admin API's live feed) from a
 * fetch response: `event:`, `data:` (joined over several lines) and `id:`
 * fields, comment lines ignored, an event dispatched at each blank line, as
 * the WHATWG specification reads them. Resolves when the stream ends.
 */

export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void | Promise<void>): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  const dispatch = async () => {
    if (data.length > 0) await onMessage({ event: event || 'message', data: data.join('\n'), id });
    event = '';
    data = [];
  };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') await dispatch();
      else if (line.startsWith(':')) continue;
      else {
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
      }
    }
  }
  await dispatch();
}
