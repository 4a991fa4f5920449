/** Lines of a server's error output that say nothing about the cause: stack frames, the source excerpt Node prints, its version line. */
const NOISE = [
  /^at\s/, // stack frames
  /^\^+$/, // the caret under a source excerpt
  /^Node\.js v\d/, // Node's version line after a crash
  /^(file:\/\/|node:)\S*:\d+$/, // `file:///…/index.js:2` above a source excerpt
  /^\{$|^\}$|^code: '|^url: '|^errno: |^syscall: |^path: '|^requireStack: |^\]$|^\[$/, // the fields of an error object
  /^Warning: |^\(Use `node --trace-warnings/, // deprecation noise
  /^npm (notice|warn)\b/,
];

/** Lines that name a cause. */
const CAUSE = /error|ERR_[A-Z_]+|denied|not found|no such file|cannot|EACCES|ENOENT|EPERM|E403|E404|permission|refused|unauthori[sz]ed|forbidden|missing|invalid|failed|fatal|exception|traceback/i;

/** How many raw lines a server keeps for this. */
export const TAIL_LINES = 40;

/**
 * The lines of a server's stderr that say why it failed, at most `max`: the first line that
 * names a cause (`Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /…`,
 * `npm error code E403`), then the last few lines that are not noise. Stack frames, source
 * excerpts and Node's version line are left out.
 *
 * @example
 * meaningfulLines(['file:///srv/index.js:2', 'import x from "x";', '       ^', "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /srv/index.js", '    at packageResolve (node:internal/…)', 'Node.js v20.20.2']);
 * // ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'x' imported from /srv/index.js"]
 */
export function meaningfulLines(lines: string[], max = 3): string[] {
  const kept = lines.map((l) => l.trim()).filter((l) => l && !NOISE.some((re) => re.test(l)) && !isSourceExcerpt(l, lines));
  if (!kept.length) return [];
  const cause = kept.find((l) => CAUSE.test(l));
  const last = kept.slice(-max);
  if (!cause || last.includes(cause)) return last;
  return [cause, ...last.slice(-(max - 1))];
}

/** The line of code Node prints between `file:///…:N` and the caret line. */
function isSourceExcerpt(line: string, all: string[]): boolean {
  const i = all.findIndex((l) => l.trim() === line);
  if (i <= 0) return false;
  const before = all[i - 1]!.trim();
  const after = all[i + 1]?.trim() ?? '';
  return /^(file:\/\/|node:)\S*:\d+$/.test(before) || /^\^+$/.test(after);
}

/** ` (stderr: a | b)`, or nothing when the server said nothing useful. */
export function stderrNote(lines: string[]): string {
  const shown = meaningfulLines(lines);
  return shown.length ? ` (stderr: ${shown.join(' | ').slice(-600)})` : '';
}
