/**
 * A git command line as git reads it, for `exec.ask` rules on git: the global options before
 * the subcommand are skipped (`-C dir`, `--git-dir=…`, `--work-tree …`), the plumbing that
 * pushes is read as `push` (`send-pack`, `http-push`, the remote helpers), and what could run
 * any command — an alias or an external `git-*` program, configuration given on the command
 * line (`-c`, `--config-env`: `alias.*`, `core.sshCommand`, `core.pager`, …), another exec path,
 * a subcommand or option that runs a command its arguments name — is reported, since such a
 * call can push without saying so.
 */

/** Global options that take the next argument as their value (when not written `--opt=value`). */
const WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source', '--list-cmds']);
/** Global options without a value. */
const FLAGS = new Set(['-p', '--paginate', '-P', '--no-pager', '--no-replace-objects', '--bare', '--literal-pathspecs', '--glob-pathspecs',
  '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--no-lazy-fetch', '--no-advice', '--html-path', '--man-path', '--info-path',
  '-v', '--version', '-h', '--help']);
/** Global options that make git run programs it is told about. */
const CONFIGURES = new Set(['-c', '--config-env']);

/** git's own commands (git 2.39 and later); anything else is an alias or an external `git-<name>` program. */
const KNOWN = new Set(`add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap
  check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config count-objects describe
  diagnose diff diff-files diff-index diff-tree fast-export fast-import fetch fetch-pack fmt-merge-msg for-each-ref format-patch fsck
  fsck-objects gc get-tar-commit-id grep hash-object help index-pack init init-db interpret-trailers log ls-files ls-remote ls-tree mailinfo
  mailsplit maintenance merge merge-base merge-file merge-index merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects
  pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase receive-pack reflog remote repack replace
  request-pull rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index show-ref sparse-checkout stage
  stash status stripspace switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive
  upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree http-push`.split(/\s+/));

/** Commands that push, read as `push`. */
const PUSHES = new Set(['push', 'send-pack', 'http-push']);

/** Commands that run a command (a script, a tool, a browser, a hook) their arguments or settings name. */
const RUNS = new Set(['filter-branch', 'bisect', 'submodule', 'difftool', 'mergetool', 'for-each-repo', 'instaweb', 'web--browse', 'daemon',
  'shell', 'hook', 'credential', 'help', 'maintenance']);

/** Options (after the subcommand) that name a program to run: `--upload-pack`, `--exec`, `-x` of rebase, `-O` of grep, … */
function runsProgram(sub: string, arg: string): boolean {
  if (/^--(?:upload-pack|receive-pack|exec|extcmd|open-files-in-pager|tool)(?:=|$)/.test(arg)) return true;
  if ((sub === 'rebase' || sub === 'difftool') && /^-[a-zA-Z]*x/.test(arg) && !arg.startsWith('--')) return true;
  if (sub === 'grep' && /^-O/.test(arg)) return true;
  if ((sub === 'clone' || sub === 'ls-remote' || sub === 'archive') && /^-u/.test(arg)) return true;
  return false;
}

/** A git command line as git reads it. */
export interface GitCall {
  /** `[subcommand, ...its arguments]`, the subcommand read as git would run it (`send-pack` → `push`). */
  argv: string[];
  /** Why this call could run any command (and so push), when it could. */
  anything?: string;
}

/**
 * Reads a git argument list (without the program).
 *
 * @example
 * gitCall(['-C', '.', 'push', 'origin'])          // { argv: ['push', 'origin'] }
 * gitCall(['-c', 'alias.p=push', 'p'])            // { argv: ['p'], anything: 'it sets configuration on the command line (-c alias.p=push)…' }
 * gitCall(['send-pack', '--all', 'origin'])       // { argv: ['push', '--all', 'origin'] }
 */
export function gitCall(args: string[]): GitCall {
  let anything: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) break;
    const [name, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    if (CONFIGURES.has(name)) {
      const value = inline ?? args[++i] ?? '';
      anything ??= `it sets configuration on the command line (${name} ${value}), which can make git run any command (an alias, core.sshCommand, core.pager, …)`;
    } else if (name === '--exec-path') {
      if (inline !== undefined) anything ??= `it sets --exec-path, where git finds the programs it runs`;
    } else if (WITH_VALUE.has(name)) {
      if (inline === undefined) i++;
    } else if (!FLAGS.has(name)) {
      return { argv: args.slice(i), anything: anything ?? `git option ${a} is not one the sandbox knows, so what git runs cannot be told` };
    }
  }
  const sub = args[i];
  if (sub === undefined) return { argv: [], ...(anything ? { anything } : {}) };
  const rest = args.slice(i + 1);
  if (PUSHES.has(sub) || sub.startsWith('remote-')) return { argv: ['push', ...rest], ...(anything ? { anything } : {}) };
  if (!KNOWN.has(sub) && !RUNS.has(sub)) {
    anything ??= `"${sub}" is not a git command: it is an alias or an external git-${sub} program, which can run anything`;
  } else if (RUNS.has(sub)) {
    anything ??= `git ${sub} runs commands its arguments or settings name`;
  } else {
    const opt = rest.find((r) => runsProgram(sub, r));
    if (opt) anything ??= `git ${sub} ${opt} runs a program it is given`;
  }
  return { argv: [sub, ...rest], ...(anything ? { anything } : {}) };
}
