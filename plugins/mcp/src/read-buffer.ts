import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The stdio transport's line buffer, in linear time. The SDK's copies everything buffered on
 * each chunk (`Buffer.concat`), so a 10 MB line read in 64 KiB chunks copies ~800 MB and holds
 * the event loop for tenths of a second at a time; this one keeps the chunks and joins each line
 * once. Same contract: `append` throws past `maxBytes` (the transport then closes), `readMessage`
 * returns the next parsed message or null. Loaded only with the SDK (a lazy import).
 */
export class LinearReadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private lines: string[] = [];

  constructor(private readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl));
      this.lines.push(Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, ''));
      this.chunks = [];
      this.size = 0;
      start = nl + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.lines.shift();
    return line === undefined ? null : deserializeMessage(line);
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.lines = [];
  }

  private take(part: Buffer): void {
    if (this.size + part.length > this.maxBytes) {
      this.clear();
      // The text the transport's error handler (and GuardedTransport) recognise.
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.chunks.push(part);
    this.size += part.length;
  }
}
