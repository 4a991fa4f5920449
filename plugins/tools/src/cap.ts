import { binaryType } from './sniff.ts';

/**
 * Keeps the first bytes of a stream and counts all of them, so a result can show a prefix
 * and still report the full length.
 */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes seen in total. */
  total = 0;

  /** `maxChars` characters are kept (up to 4 bytes each in UTF-8). */
  constructor(private readonly maxChars: number) {}

  push(chunk: Uint8Array | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.total += buf.length;
    const room = this.maxChars * 4 - this.kept;
    if (room <= 0) return;
    const part = buf.subarray(0, room);
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  /** The media type when the kept bytes are binary, else undefined. */
  binaryType(): string | undefined {
    return binaryType(Buffer.concat(this.chunks));
  }

  /** The kept text, cut to `maxChars`, and whether anything was left out. */
  text(): { text: string; cut: boolean } {
    let text = Buffer.concat(this.chunks).toString('utf8');
    let cut = this.total > this.kept;
    // A multi-byte character split at the cut decodes as U+FFFD; drop it.
    if (cut) text = text.replace(/\uFFFD$/, '');
    if (text.length > this.maxChars) { text = text.slice(0, this.maxChars); cut = true; }
    return { text, cut };
  }
}

/** Cuts a string to `max` characters; `cut` says whether anything was dropped. */
export function capText(text: string, max: number): { text: string; cut: boolean } {
  return text.length > max ? { text: text.slice(0, max), cut: true } : { text, cut: false };
}

/**
 * `--- stdout (1234 bytes; first 20000 characters shown) ---` and the text; binary output
 * (see {@link binaryType}) as `--- stdout (binary, 1234 bytes, image/png: not shown) ---`.
 */
export function section(label: string, capture: Capture): string {
  if (capture.total === 0) return `--- ${label} (empty) ---`;
  const binary = capture.binaryType();
  if (binary) return `--- ${label} (binary, ${capture.total} bytes, ${binary}: not shown) ---`;
  const { text, cut } = capture.text();
  const size = `${capture.total} bytes`;
  return `--- ${label} (${cut ? `${size}; only the first ${text.length} characters are shown` : size}) ---\n${text}`;
}
