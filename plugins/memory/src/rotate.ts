import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { MemoryEntry } from '@oryxos/contracts';
import { writeFileAtomic } from './atomic.ts';
import { formatEntry, removeEntries, type ParsedEntry, type ParsedMemory } from './format.ts';

/** The folder beside a MEMORY.md that holds its rotated archive files. */
export const ARCHIVE_DIR = 'memory-archive';

/** `2026-11-30.md`, `2026-11-30.2.md`, …: one file per rotation, named by its day. */
const ARCHIVE_FILE = /^(\d{4}-\d{2}-\d{2})(?:\.(\d+))?\.md$/;

/** The archive folder of a memory file. */
export const archiveDirOf = (file: string) => path.join(path.dirname(file), ARCHIVE_DIR);

/** The archive files of a memory file, oldest first ([] when there are none). */
export async function archiveFiles(file: string): Promise<string[]> {
  const dir = archiveDirOf(file);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
  return names
    .map((name) => ({ name, m: ARCHIVE_FILE.exec(name) }))
    .filter((x): x is { name: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => a.m[1]!.localeCompare(b.m[1]!) || Number(a.m[2] ?? 1) - Number(b.m[2] ?? 1))
    .map((x) => path.join(dir, x.name));
}

/** What a rotation does: the entries to move (oldest first) and the file's text without them. */
export interface Rotation { moved: ParsedEntry[]; text: string }

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Plans the rotation of a memory file past `maxBytes`: its oldest Archive entries (by date,
 * then file order; undated first) leave until the file is at most half of `maxBytes`, so the
 * next rotation is far off. Core, prose and headings never move. Undefined when the file is
 * within the limit or has no Archive entry to move.
 */
export function planRotation(text: string, parsed: ParsedMemory, maxBytes: number): Rotation | undefined {
  let size = bytes(text);
  if (size <= maxBytes) return undefined;
  const oldestFirst = [...parsed.archive].sort((a, b) => (a.date || '').localeCompare(b.date || '') || a.index - b.index);
  const eol = bytes(parsed.eol);
  const moved: ParsedEntry[] = [];
  for (const e of oldestFirst) {
    if (size <= maxBytes / 2) break;
    moved.push(e);
    for (let i = e.line; i < e.endLine; i++) size -= bytes(parsed.lines[i]!) + eol;
  }
  if (!moved.length) return undefined;
  moved.sort((a, b) => a.index - b.index);
  return { moved, text: removeEntries(parsed, moved) };
}

/**
 * Writes rotated entries to new dated files in the archive folder (`2026-11-30.md`, then
 * `2026-11-30.2.md`, …), none larger than about `maxBytes`, atomically, before the caller
 * rewrites MEMORY.md: a crash in between leaves an entry in both places (recall shows it
 * once), never in neither. Returns the files written.
 */
export async function writeArchiveFiles(file: string, entries: MemoryEntry[], day: string, maxBytes: number, sync = true): Promise<string[]> {
  const dir = archiveDirOf(file);
  await mkdir(dir, { recursive: true });
  const taken = new Set((await archiveFiles(file)).map((f) => path.basename(f)));
  const header = `# Memory archive\n\nArchive entries moved out of ${path.relative(dir, file)} on ${day}, when it passed its size limit. `
    + 'recall_memory searches this file; nothing reads it into prompts.\n\n## Archive\n\n';
  const written: string[] = [];
  let n = 1;
  for (let i = 0; i < entries.length;) {
    let body = '';
    let size = bytes(header);
    for (; i < entries.length; i++) {
      const line = `${formatEntry(entries[i]!)}\n`;
      if (body && size + bytes(line) > maxBytes) break;
      body += line;
      size += bytes(line);
    }
    while (taken.has(n === 1 ? `${day}.md` : `${day}.${n}.md`)) n++;
    const name = n === 1 ? `${day}.md` : `${day}.${n}.md`;
    taken.add(name);
    await writeFileAtomic(path.join(dir, name), header + body, { sync });
    written.push(path.join(dir, name));
  }
  return written;
}
