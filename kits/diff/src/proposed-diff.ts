import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** A tool call as a door shows it to the person who decides it. */
export interface ProposedCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface ProposedDiffOptions {
  /**
   * Read the file only when it is inside `root` (symbolic links resolved); a path outside gets
   * no diff, so the door shows the arguments instead. A server sets it: whoever can see its
   * approvals must not read any file of the machine through them. The terminal's person may.
   */
  insideRoot?: boolean;
  /** Lines shown at most (default 200); the rest is counted on a last line. */
  maxLines?: number;
  /** The largest file or new content diffed, in bytes (default 1 MiB): a bigger one gets no diff. */
  maxBytes?: number;
  /** How long the diff may take (default 1000 ms; it runs on the event loop): past it, no diff. */
  timeoutMs?: number;
}

/** Lines of a diff shown at most by default. */
export const MAX_DIFF_LINES = 200;
const MAX_BYTES = 1024 * 1024;

/**
 * What a write would change, as a unified diff (`jsdiff`, loaded on first use): for
 * `write_file` the file as it is against the new content (`/dev/null` when it does not exist),
 * for `edit_file` the file with the one replacement made. Undefined for other tools, for
 * arguments of another shape, for an edit whose text does not occur exactly once, and (with
 * `insideRoot`) for a path outside `root`, and for texts too big or too different to diff
 * quickly (`maxBytes`, `timeoutMs`): the door shows the arguments then.
 *
 * @example
 * await proposedDiff({ tool: 'write_file', args: { path: 'a.txt', content: 'new\n' } }, '/proj')
 * // '--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new'
 */
export async function proposedDiff(call: ProposedCall, root: string, options: ProposedDiffOptions = {}): Promise<string | undefined> {
  const { tool, args } = call;
  if ((tool !== 'write_file' && tool !== 'edit_file') || typeof args.path !== 'string') return undefined;
  const file = args.path;
  const full = path.resolve(root, file);
  if (options.insideRoot && !(await isInside(full, root))) return undefined;
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  const size = await stat(full).then((st) => st.size, () => 0);
  if (size > maxBytes) return undefined;
  const before = await readFile(full, 'utf8').catch(() => undefined);
  let after: string;
  if (tool === 'write_file') {
    if (typeof args.content !== 'string') return undefined;
    after = args.content;
  } else {
    if (before === undefined || typeof args.old !== 'string' || typeof args.new !== 'string') return undefined;
    const at = before.indexOf(args.old);
    if (at < 0 || before.indexOf(args.old, at + 1) >= 0) return undefined;
    after = before.slice(0, at) + args.new + before.slice(at + args.old.length);
  }
  if (Buffer.byteLength(after) > maxBytes) return undefined;
  const { createTwoFilesPatch } = await import('diff');
  const patch = createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${file}`, `b/${file}`, before ?? '', after, undefined, undefined, {
    context: 3, timeout: options.timeoutMs ?? 1000,
  });
  if (patch === undefined) return undefined;
  // jsdiff puts a "====" rule above the file names; a unified diff starts at "---".
  const lines = patch.split('\n').filter((l, i) => !(i === 0 && l.startsWith('===')));
  if (lines.at(-1) === '') lines.pop();
  const max = options.maxLines ?? MAX_DIFF_LINES;
  if (lines.length <= max) return lines.join('\n');
  return [...lines.slice(0, max), `… ${lines.length - max} more lines`].join('\n');
}

/** Whether `file` (or, when it does not exist yet, its nearest existing folder) is inside `root`, links resolved. */
async function isInside(file: string, root: string): Promise<boolean> {
  const base = await realpath(root).catch(() => path.resolve(root));
  let probe = file;
  let rest = '';
  for (;;) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      const rel = path.relative(base, path.join(real, rest));
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    }
    const parent = path.dirname(probe);
    if (parent === probe) return false;
    rest = path.join(path.basename(probe), rest);
    probe = parent;
  }
}
