import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { SandboxAction } from '@oryxos/contracts';
import type { Tool, ToolContext } from '@oryxos/kernel';
import { absolutePath } from '@oryxos/plugin-kit';
import { isOryxError, OryxError } from '@oryxos/provider-spec';
import { builtinTool, later, type ToolEnv } from '../builtin.ts';
import { shellWords } from '../shell-words.ts';

const shellArgs = (maxTimeoutMs: number) => s.object({
  command: s.string({ min: 1 }),
  args: s.array(s.string()).optional(),
  cwd: s.string({ min: 1 }).optional(),
  timeoutMs: s.integer({ min: 1, max: maxTimeoutMs }).optional(),
});
export type ShellArgs = Infer<ReturnType<typeof shellArgs>>;

/** What a `shell` call starts: a program and its argv, or why it cannot be read. */
export type ShellPlan = { command: string; args: string[]; needsShell?: string } | { refused: string };

/**
 * How a call runs. With `args`, `command` is the program. Without, `command` is a command line:
 * split into words as a shell would (quotes, escapes) and run as that argv, or — when it uses
 * what only a shell does (a pipe, a redirection, a substitution, a glob) — run as `sh -c line`,
 * which the sandbox checks (and confines) like any program.
 *
 * @example
 * shellPlan({ command: 'git log -n 1' })  // { command: 'git', args: ['log', '-n', '1'] }
 * shellPlan({ command: 'ls | wc -l' })    // { command: 'sh', args: ['-c', 'ls | wc -l'], needsShell: 'a pipe (|)' }
 */
export function shellPlan(a: ShellArgs): ShellPlan {
  if (a.args) return { command: a.command, args: a.args };
  const line = shellWords(a.command);
  if ('error' in line && line.error) return { refused: `shell: the command line could not be read: it has ${line.error}` };
  if (line.words) {
    if (!line.words.length) return { refused: 'shell: the command line has no program in it' };
    return { command: line.words[0]!, args: line.words.slice(1) };
  }
  return { command: 'sh', args: ['-c', a.command], needsShell: (line as { shell: string }).shell };
}

/** The exec action of a plan (none for a line that cannot be read: the call fails saying why). */
function execActions(a: ShellArgs, env: ToolEnv): SandboxAction[] {
  const plan = shellPlan(a);
  if ('refused' in plan) return [];
  return [{ kind: 'exec', command: plan.command, args: plan.args, ...(a.cwd ? { cwd: absolutePath(a.cwd, env.root) } : {}) }];
}

/**
 * A line that needs a shell is refused, when the policy allows none, with what would allow it:
 * the sandbox's reason alone ("sh is not on the exec allow-list") does not tell the model that
 * the same work may be done one program per call.
 */
async function shellActions(a: ShellArgs, ctx: ToolContext, env: ToolEnv): Promise<SandboxAction[]> {
  const actions = execActions(a, env);
  const plan = shellPlan(a);
  if (!('needsShell' in plan) || !plan.needsShell) return actions;
  try {
    await ctx.enforce(actions[0]!);
  } catch (error) {
    if (!isOryxError(error) || error.code !== 'ORYX_E_SANDBOX_DENIED') return actions; // an ask goes to a person as usual
    const reason = String(error.data?.reason ?? error.message);
    throw new OryxError('ORYX_E_SANDBOX_DENIED', `Denied by the sandbox: ${reason}`, {
      hint: error.hint,
      data: {
        action: actions[0],
        reason: `${reason}. The command line uses ${plan.needsShell}, which only a shell carries out, so it would run as sh -c. `
          + 'Run one program per call instead (a line without | & ; < > ( ) $ ` * ? [ ~ is split into words and run without a shell, or pass args as an array), '
          + "or allow a shell in oryx.config.ts: sandbox({ exec: { allow: [{ command: 'sh', args: ['-c', '[\\s\\S]*'] }] } }) "
          + "(or exec.ask: ['sh'] to approve each line); the shell runs confined like every program.",
      },
    });
  }
  return actions;
}

/**
 * `shell {command, args?, cwd?, timeoutMs?}`: runs one program with an argv array through
 * execa; a command line without `args` is split into words, or run as `sh -c` when it needs a
 * shell and the sandbox allows one (see {@link shellPlan}). Output is captured with its full length; on timeout the whole
 * process group gets SIGTERM, then SIGKILL after `killGraceMs`.
 */
export function shellTool(env: ToolEnv): Tool {
  const o = env.options;
  return builtinTool({
    name: 'shell',
    parallel: false, // changes files or runs programs: never beside another call
    description: `Run a command: either a command line in command (split into words as a shell does, quotes and backslashes included: "git commit -m 'first commit'"), or one program in command with its arguments in args. `
      + `A line with | & ; < > $ backticks globs or ~ needs a shell and runs as sh -c only when the sandbox allows sh; otherwise run one program per call. `
      + `Returns the exit code, stdout and stderr (each cut to ${o.maxOutputChars} characters, with the full length). A non-zero exit code is an error result. `
      + `Stops the program after timeoutMs (default ${o.shellTimeoutMs}, at most ${o.maxShellTimeoutMs}). Standard input is empty.`,
    args: shellArgs(o.maxShellTimeoutMs),
    describe: {
      command: 'A command line ("ls -la src"), or, with args, the program: a name looked up on PATH (git) or a path (./scripts/check.sh).',
      args: 'The arguments, one string each, passed as they are (no quoting needed). Omit to give a command line in command.',
      cwd: 'Working folder, relative to the project folder. Default: the project folder.',
      timeoutMs: `Time limit in milliseconds. Default ${o.shellTimeoutMs}.`,
    },
    timeoutMs: o.maxShellTimeoutMs + o.killGraceMs + 5000,
    // One exec action covers the whole launch: the sandbox checks the program, its arguments
    // and the working folder (and, for a narrowed agent, explains a folder it may not read).
    actions: (a, ctx) => shellActions(a, ctx, env),
    execute: later((r) => r.shell, env),
  });
}
