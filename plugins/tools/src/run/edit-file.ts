import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ToolContext, ToolResult } from '@oryxos/kernel';
import { writeAtomic } from '../atomic-write.ts';
import type { ToolEnv } from '../builtin.ts';
import { allowedPath } from '../file-access.ts';
import { fsProblem } from '../fs-paths.ts';
import type { EditFileArgs } from '../tools/edit-file.ts';
import { failure, isSandboxDenial } from './results.ts';

/**
 * How often `needle` occurs in `text`, overlapping occurrences included ("aa" occurs twice in
 * "aaa"), and where the first `keep` start. Knuth–Morris–Pratt: time linear in the two
 * lengths whatever they hold, where `indexOf` in a loop is O(text × needle) on repetitive
 * text (2 MB of "a" and a 30,000-character "a…a" took 31 s and held the event loop).
 */
export function occurrences(text: string, needle: string, keep = 10): { count: number; first: number[] } {
  const m = needle.length;
  const border = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    border[i] = k;
  }
  const first: number[] = [];
  let count = 0;
  for (let i = 0, k = 0; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== needle.charCodeAt(k)) k = border[k - 1]!;
    if (text.charCodeAt(i) === needle.charCodeAt(k)) k++;
    if (k === m) {
      if (first.length < keep) first.push(i - m + 1);
      count++;
      k = border[k - 1]!;
    }
  }
  return { count, first };
}

/** 1-based line numbers of ascending offsets, in one pass. */
function lineNumbers(text: string, offsets: number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const at of offsets) {
    for (let i = text.indexOf('\n', from); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
    from = at;
    lines.push(line);
  }
  return lines;
}

/** Runs `edit_file` (defined in tools/edit-file.ts): replaces one exact, unique occurrence of `old`. */
export async function editFile(a: EditFileArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  try {
    const real = await allowedPath(a.path, ['read', 'write'], env, ctx);
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let text: string;
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) return failure(`edit_file: ${a.path} is a folder`);
      if (!stats.isFile()) return failure(`edit_file: ${a.path} is not a regular file`);
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    if (text.includes('\0')) return failure(`edit_file: ${a.path} looks binary; it can only edit text files`);
    const found = occurrences(text, a.old);
    if (found.count === 0) {
      return failure(`edit_file: old text not found in ${a.path} (0 matches); nothing changed. Read the file and copy the exact text, whitespace and line breaks included.`);
    }
    const lines = lineNumbers(text, found.first);
    if (found.count > 1) {
      return failure(`edit_file: old text occurs ${found.count} times in ${a.path} (lines ${lines.join(', ')}${found.count > lines.length ? ', …' : ''}); nothing changed. Include more surrounding text so it occurs exactly once.`);
    }
    const at = found.first[0]!;
    await writeAtomic(real, text.slice(0, at) + a.new + text.slice(at + a.old.length), ctx);
    return `Replaced 1 occurrence in ${a.path} at line ${lines[0]}`;
  } catch (error) {
    if (isSandboxDenial(error)) throw error;
    return failure(`edit_file: ${fsProblem(error, a.path)}`);
  }
}
