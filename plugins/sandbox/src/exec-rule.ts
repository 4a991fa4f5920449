import { resolveExecutable } from '@oryxos/plugin-kit';

/** Resource limits of a confined process. */
export interface Limits { cpuSeconds?: number; memoryMb?: number; processes?: number }

/** One parsed `exec.allow` entry. */
export interface ExecEntry {
  /** How the entry reads in oryx.config.ts, for reasons and warnings. */
  source: string;
  command: string;
  /** Positional rules: argument i must match args[i] in full. */
  args?: RegExp[];
  /** Rule for every argument after the positional ones; without it, extra arguments are denied. */
  rest?: RegExp;
  /** An `exec.ask` entry: the positional rules match a prefix, so extra arguments need no `rest`. */
  prefix?: boolean;
  /** Where the command resolved when the policy was built. */
  resolved?: string;
  /** Extra `exec.env` patterns for this program. */
  env?: string[];
  limits?: Limits;
}

/** Compiles a rule anchored at both ends, so `test` cannot match `attest; rm`. */
export function compilePattern(source: string): RegExp | string {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
}

/** Why the arguments break the entry's rules, or undefined when they fit. */
function argsProblem(entry: ExecEntry, args: string[]): string | undefined {
  if (!entry.args && !entry.rest) return undefined;
  for (let i = 0; i < args.length; i++) {
    const rule = entry.args && i < entry.args.length ? entry.args[i] : entry.rest;
    if (!rule) {
      if (entry.prefix) return undefined;
      return `argument ${i + 1} (${JSON.stringify(args[i])}) is not allowed: the rule ${entry.source} allows at most ${entry.args?.length ?? 0} argument(s)`;
    }
    if (!rule.test(args[i]!)) return `argument ${i + 1} (${JSON.stringify(args[i])}) does not match ${rule.source} in the rule ${entry.source}`;
  }
  return undefined;
}

/** A decision on a command line: the entry that allows it, or why none does. */
export type ExecMatch = { entry: ExecEntry; program: string } | { reason: string };

/**
 * Finds the entry that allows this command and argv (`cwd` is where a relative command is
 * looked up), or says why none does.
 */
export async function matchExec(entries: ExecEntry[], command: unknown, args: unknown, cwd: string): Promise<ExecMatch> {
  if (typeof command !== 'string' || !command) return { reason: 'the exec action has no command' };
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) return { reason: 'the exec action needs args as an array of strings' };
  if (command.includes('\0') || args.some((a: string) => a.includes('\0'))) return { reason: 'a command or argument containing a NUL byte is not allowed' };
  const resolved = await resolveExecutable(command, cwd);
  if (!resolved) {
    return { reason: `command ${JSON.stringify(command)} was not found${command.includes('/') ? '' : ' on PATH'}, so it cannot match the exec allow-list` };
  }
  const shown = resolved === command ? resolved : `${JSON.stringify(command)} (${resolved})`;
  const matching: ExecEntry[] = [];
  for (const entry of entries) {
    entry.resolved ??= await resolveExecutable(entry.command, cwd);
    if (entry.resolved === resolved) matching.push(entry);
  }
  if (!matching.length) return { reason: `command ${shown} is not on the exec allow-list` };
  let problem: string | undefined;
  for (const entry of matching) {
    const p = argsProblem(entry, args as string[]);
    if (!p) return { entry, program: resolved };
    problem ??= p;
  }
  return { reason: `${shown}: ${problem}` };
}

/** An `exec.ask` entry that matches a command line, and why it does (when not by its argument rules as given). */
export type AskMatch = { entry: ExecEntry; program: string; why?: string };

/**
 * The `exec.ask` entry a command line matches. For git, the arguments are also read as git
 * reads them (git-argv.ts): `git -C . push` matches `{ args: ['push'] }`, and a call that could
 * run any command (an alias, `-c`, an external git program) matches every git entry. Other
 * programs are matched by position only: an ask on them is advisory (warned at start).
 *
 * @example
 * await matchAsk(entries, 'git', ['--git-dir=.git', 'push'], '/proj') // { entry, program: '/usr/bin/git', why: 'as git reads it: push' }
 */
export async function matchAsk(entries: ExecEntry[], command: unknown, args: unknown, cwd: string): Promise<AskMatch | undefined> {
  const raw = await matchExec(entries, command, args, cwd);
  if ('entry' in raw) return raw;
  if (typeof command !== 'string' || !Array.isArray(args)) return undefined;
  const resolved = await resolveExecutable(command, cwd);
  if (!resolved || !/^git(?:\.exe)?$/.test(resolved.split('/').at(-1)!)) return undefined;
  const onGit = entries.filter((e) => e.resolved === resolved);
  if (!onGit.length) return undefined;
  const { gitCall } = await import('./git-argv.ts');
  const call = gitCall(args as string[]);
  if (call.anything) return { entry: onGit[0]!, program: resolved, why: call.anything };
  const read = await matchExec(onGit, command, call.argv, cwd);
  return 'entry' in read ? { ...read, why: `as git reads it: ${JSON.stringify(['git', ...call.argv])}` } : undefined;
}
