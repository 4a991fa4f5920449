/** One server-sent event: its `event` name (absent for the default `message`) and its data lines joined. */
export interface SseEvent { event?: string; data: string }

/**
 * Reads server-sent events from a response body as they arrive (EventSource cannot POST or
 * send headers). Follows the format's rules: CR, LF or CRLF end lines, a blank line ends an
 * event, `:` lines are comments, several `data:` lines join with a newline.
 *
 * @example
 * for await (const e of readSse(res.body!)) if (e.event === 'token') show(JSON.parse(e.data).text);
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = /\r\n|\n|\r/.exec(buffer);
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (!end || (end[0] === '\r' && end.index === buffer.length - 1 && !done)) break;
        const line = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        if (line === '') {
          if (data.length || event !== undefined) yield { ...(event !== undefined ? { event } : {}), data: data.join('\n') };
          event = undefined;
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
