import { open, stat } from 'node:fs/promises';
import { parseMemory, type ParsedMemory } from './format.ts';

/** A map that forgets its least recently used entries past `max`. */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void { this.map.delete(key); }
  clear(): void { this.map.clear(); }
}

/** A memory file as read: its text and parse, and the signature they belong to. */
export interface LoadedFile {
  path: string;
  exists: boolean;
  text: string;
  parsed: ParsedMemory;
  /** `inode:size:mtime:ctime`, or `missing`: what the cached parse is valid for. */
  sig: string;
  /** Values derived from this version of the file (search index, prompt order), computed once. */
  memo: Map<string, unknown>;
  /**
   * True while the file's mtime was too close to when it was read to rule out a later write in
   * the same timestamp tick (coarse file-system clocks): the text is then compared on load.
   */
  racy: boolean;
}

type Stats = { ino: number; size: number; mtimeMs: number; ctimeMs: number };
const signature = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * A write within this long of a file's mtime may share its timestamp (file systems keep time
 * in ticks of a few milliseconds, some in whole seconds), so a same-size edit could keep the
 * signature: such files have their text compared, as git does for "racily clean" entries.
 */
const RACY_MS = 2000;
const racy = (s: Stats) => Date.now() - Math.max(s.mtimeMs, s.ctimeMs) < RACY_MS;

function missing(file: string): LoadedFile {
  return { path: file, exists: false, text: '', parsed: parseMemory(''), sig: 'missing', memo: new Map(), racy: false };
}

/**
 * Parsed memory files, re-read only when they change. Every `load` costs one `stat`; the file
 * is parsed again only when its inode, size, mtime or ctime differ from the cached version (or,
 * for a file written in the last two seconds, when its text does), so a hand edit shows at the
 * next prompt while a 100,000-entry file is parsed once. Writes through the store update the
 * cache with the text they wrote.
 */
export class ParsedFileCache {
  private readonly files: Lru<string, LoadedFile>;
  constructor(max = 1024) { this.files = new Lru(max); }

  async load(file: string): Promise<LoadedFile> {
    let stats: Stats;
    try {
      stats = await stat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.files.delete(file);
      return missing(file);
    }
    const cached = this.files.get(file);
    if (cached && cached.sig === signature(stats) && !cached.racy) return cached;
    // Read and stat the same open file, so the signature belongs to the text read.
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return missing(file);
      throw error;
    }
    try {
      const now = await handle.stat();
      const sig = signature(now);
      const text = await handle.readFile('utf8');
      if (cached && cached.sig === sig && cached.text === text) {
        cached.racy = racy(now);
        return cached;
      }
      const loaded: LoadedFile = { path: file, exists: true, text, parsed: parseMemory(text), sig, memo: new Map(), racy: racy(now) };
      this.files.set(file, loaded);
      return loaded;
    } finally {
      await handle.close();
    }
  }

  /**
   * Records what a write just put in the file, so the next load does not read or parse it
   * again. Not racy: any other writer of ours replaces the file (a new inode), and the text is
   * known exactly.
   */
  async wrote(file: string, text: string, parsed: ParsedMemory = parseMemory(text), stats?: Stats): Promise<void> {
    try {
      const now = stats ?? await stat(file);
      this.files.set(file, { path: file, exists: true, text, parsed, sig: signature(now), memo: new Map(), racy: false });
    } catch {
      this.files.delete(file);
    }
  }

  forget(file: string): void { this.files.delete(file); }
}

/** A value derived from one version of a file, computed on first use and kept with it. */
export function memoize<T>(file: LoadedFile, key: string, compute: () => T): T {
  if (file.memo.has(key)) return file.memo.get(key) as T;
  const value = compute();
  file.memo.set(key, value);
  return value;
}
