/** Signatures of common binary formats, checked against the first bytes. */
const SIGNATURES: [type: string, magic: (number | undefined)[], at?: number][] = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['image/webp', [0x57, 0x45, 0x42, 0x50], 8],
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
  ['application/x-bzip2', [0x42, 0x5a, 0x68]],
  ['application/x-xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['application/x-7z-compressed', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['application/zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['application/x-executable (ELF)', [0x7f, 0x45, 0x4c, 0x46]],
  ['application/wasm', [0x00, 0x61, 0x73, 0x6d]],
  ['application/vnd.sqlite3', [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00]],
];

/**
 * The media type of bytes that are not text: a known format by its signature, else
 * `application/octet-stream` when they hold a NUL byte (as git decides). Undefined for text.
 * Tool output that is binary is reported by size and type instead of being decoded into
 * mangled text.
 *
 * @example
 * binaryType(await readFile('logo.png')); // 'image/png'
 * binaryType(Buffer.from('hello'));       // undefined
 */
export function binaryType(bytes: Uint8Array): string | undefined {
  for (const [type, magic, at = 0] of SIGNATURES) {
    if (bytes.length >= at + magic.length && magic.every((b, i) => bytes[at + i] === b)) return type;
  }
  return bytes.includes(0) ? 'application/octet-stream' : undefined;
}
