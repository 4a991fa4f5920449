/**
 * Reading an npm package tarball (a gzipped ustar archive) without unpacking it: what
 * `oryx plugins install` looks at before anything of a package is installed or run.
 */
import { gunzipSync } from 'node:zlib';

/**
 * The regular files of a package tarball, by their path inside the package (the archive's first
 * folder, `package/` for npm, left out as npm leaves it out). Long names (pax `path`, GNU `L`)
 * are read; links and folders are left out. Throws on an archive that is not one.
 *
 * @example
 * const files = readTarball(await readFile('oryx-plugin-shout-1.2.3.tgz'));
 * JSON.parse(files.get('package.json')!.toString('utf8')).name; // 'oryx-plugin-shout'
 */
export function readTarball(gzipped: Uint8Array): Map<string, Buffer> {
  const tar = gunzipSync(gzipped);
  const files = new Map<string, Buffer>();
  let longName: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break; // the end: zero blocks
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156]!);
    const body = tar.subarray(at + 512, at + 512 + size);
    if (body.length < size) throw new Error('the archive ends inside an entry');
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') { longName = paxPath(body) ?? longName; continue; }
    if (type === 'L') { longName = text(body); continue; }
    if (type === 'g') continue;
    const name = longName ?? joinUstar(text(header.subarray(345, 500)), text(header.subarray(0, 100)));
    longName = undefined;
    if (type !== '0' && type !== '\0' && type !== '7') continue;
    const inside = name.replace(/^\.?\/*/, '').split('/').slice(1).join('/');
    if (inside) files.set(inside, Buffer.from(body));
  }
  return files;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8').replace(/\0.*$/s, '');
const joinUstar = (prefix: string, name: string) => (prefix ? `${prefix}/${name}` : name);

/** A size field: octal digits, or (GNU, for large files) base-256 with the high bit set. */
function octal(field: Uint8Array): number {
  if (field[0]! & 0x80) return field.subarray(1).reduce((n, b) => n * 256 + b, field[0]! & 0x7f);
  const digits = text(field).trim();
  if (!/^[0-7]*$/.test(digits)) throw new Error('not a tar archive');
  return digits ? parseInt(digits, 8) : 0;
}

/** The `path` record of a pax extended header (`<len> path=<value>\n`). */
function paxPath(body: Uint8Array): string | undefined {
  for (const line of Buffer.from(body).toString('utf8').split('\n')) {
    const m = /^\d+ path=(.*)$/s.exec(line);
    if (m) return m[1];
  }
  return undefined;
}
