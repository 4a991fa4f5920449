import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { webError } from './errors.ts';

/**
 * The console's Content-Security-Policy: everything from this server only (`default-src
 * 'self'`), no inline script or style, no plugins, no base or form targets, never framed.
 * Markdown in model output can therefore not load an image from elsewhere (a way to leak
 * data), and a script that slipped past the sanitizer would not run.
 */
export const CONSOLE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'", "font-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join('; ');

/** One file of the built console, held in memory (the whole console is under 150 KB). */
export interface ConsoleFile {
  body: Uint8Array;
  /** The gzip form, when it is smaller. */
  gzip?: Uint8Array;
  type: string;
  etag: string;
}

/** The built console: `index.html` and the hashed files under `assets/`. */
export interface ConsoleBundle {
  index: ConsoleFile;
  assets: Map<string, ConsoleFile>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

/**
 * Where the build puts the console: `<package>/dist/console`, found from this module whether
 * it runs from `dist/` (the package) or `src/` (the tests, through tsx).
 */
export function consoleDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'console');
}

function fileOf(body: Uint8Array, name: string): ConsoleFile {
  const zipped = gzipSync(body, { level: 9 });
  return {
    body,
    ...(zipped.length < body.length ? { gzip: zipped } : {}),
    type: TYPES[path.extname(name)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

/**
 * Reads the built console into memory. ORYX_E_WEB_NO_CONSOLE when it was not built (a
 * checkout without `npm run build`).
 */
export async function loadConsole(dir = consoleDir()): Promise<ConsoleBundle> {
  let index: Uint8Array;
  let names: string[];
  try {
    index = await readFile(path.join(dir, 'index.html'));
    names = await readdir(path.join(dir, 'assets'));
  } catch (error) {
    throw webError('ORYX_E_WEB_NO_CONSOLE', `The web console is not built (${dir} has no index.html and assets/)`, { cause: error });
  }
  const assets = new Map<string, ConsoleFile>();
  for (const name of names) assets.set(name, fileOf(await readFile(path.join(dir, 'assets', name)), name));
  return { index: fileOf(index, 'index.html'), assets };
}

/** Whether a request accepts gzip (`Accept-Encoding`, a q of 0 refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}
