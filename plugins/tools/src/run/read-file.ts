import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { ToolContext, ToolResult } from '@oryxos/kernel';
import type { ToolEnv } from '../builtin.ts';
import { allowedPath } from '../file-access.ts';
import { fsProblem } from '../fs-paths.ts';
import { binaryType } from '../sniff.ts';
import type { ReadFileArgs } from '../tools/read-file.ts';
import { failure, isSandboxDenial } from './results.ts';

/** Runs `read_file` (defined in tools/read-file.ts). */
export async function readFile(a: ReadFileArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  const max = env.options.maxOutputChars;
  let real: string;
  try {
    real = await allowedPath(a.path, ['read'], env, ctx);
  } catch (error) {
    if (isSandboxDenial(error)) throw error;
    return failure(`read_file: ${fsProblem(error, a.path)}`);
  }
  let handle;
  try {
    // The path is already real: O_NOFOLLOW refuses a symlink swapped in since the check;
    // O_NONBLOCK keeps a named pipe from blocking the open (it is refused just below).
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return failure(`read_file: ${fsProblem(error, a.path)}`);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return failure(`read_file: ${a.path} is a folder; use list_dir to see what it holds`);
    if (!stats.isFile()) return failure(`read_file: ${a.path} is not a regular file (a device, socket or pipe)`);
    const offset = a.offset ?? 0;
    const end = offset + (a.limit ?? env.options.maxReadLines);
    const decoder = new StringDecoder('utf8');
    let line = 0;
    let out = '';
    let more = false;
    let cut = false;
    let first = true;
    let partial = false;
    const take = (text: string): boolean => {
      if (text) partial = !text.endsWith('\n');
      let pos = 0;
      while (pos < text.length) {
        if (line >= end) { more = true; return false; }
        const nl = text.indexOf('\n', pos);
        const stop = nl === -1 ? text.length : nl + 1;
        if (line >= offset) {
          out += text.slice(pos, stop);
          if (out.length > max) { out = out.slice(0, max); cut = true; return false; }
        }
        pos = stop;
        if (nl !== -1) line++;
      }
      return true;
    };
    let going = true;
    for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 64 * 1024 })) {
      const buf = chunk as Buffer;
      if (first) {
        first = false;
        const binary = binaryType(buf.subarray(0, 8192));
        if (binary) return failure(`read_file: ${a.path} is binary (${stats.size} bytes, ${binary}); it can only read text files`);
      }
      if (!(going = take(decoder.write(buf)))) break;
    }
    if (going) take(decoder.end());
    const notes: string[] = [];
    if (cut) notes.push(`[output cut at ${max} characters, inside line ${line + 1}; the file has ${stats.size} bytes. Continue with offset ${line}, or a smaller limit]`);
    else if (more) notes.push(`[lines ${offset + 1}-${end} shown; more follow: continue with offset ${end}]`);
    if (!out) {
      if (stats.size === 0) return `(${a.path} is empty)`;
      if (offset > 0 && !more) return `(offset ${offset} is past the end of ${a.path}, which has ${line + (partial ? 1 : 0)} lines)`;
    }
    return notes.length ? `${out}${out.endsWith('\n') || !out ? '' : '\n'}${notes.join('\n')}` : out;
  } catch (error) {
    return failure(`read_file: ${fsProblem(error, a.path)}`);
  } finally {
    await handle.close();
  }
}
