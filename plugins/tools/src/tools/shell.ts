import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { absolutePath } from '@oryxos/plugin-kit';
import { builtinTool, later, type ToolEnv } from '../builtin.ts';

const shellArgs = (maxTimeoutMs: number) => s.object({
  command: s.string({ min: 1 }),
  args: s.array(s.string()),
  cwd: s.string({ min: 1 }).optional(),
  timeoutMs: s.integer({ min: 1, max: maxTimeoutMs }).optional(),
});
export type ShellArgs = Infer<ReturnType<typeof shellArgs>>;

/**
 * `shell {command, args[], cwd?, timeoutMs?}`: runs one program with an argv array through
 * execa, never a shell. Output is captured with its full length; on timeout the whole
 * process group gets SIGTERM, then SIGKILL after `killGraceMs`.
 */
export function shellTool(env: ToolEnv): Tool {
  const o = env.options;
  return builtinTool({
    name: 'shell',
    parallel: false, // changes files or runs programs: never beside another call
    description: `Run one program with a list of arguments. There is no shell: ; && | $() backticks * ~ $VAR and > are passed to the program as plain text, so run one program per call. `
      + `Returns the exit code, stdout and stderr (each cut to ${o.maxOutputChars} characters, with the full length). A non-zero exit code is an error result. `
      + `Stops the program after timeoutMs (default ${o.shellTimeoutMs}, at most ${o.maxShellTimeoutMs}). Standard input is empty.`,
    args: shellArgs(o.maxShellTimeoutMs),
    describe: {
      command: 'The program: a name looked up on PATH (git) or a path (./scripts/check.sh).',
      args: 'The arguments, one string each, passed as they are. Use [] for none.',
      cwd: 'Working folder, relative to the project folder. Default: the project folder.',
      timeoutMs: `Time limit in milliseconds. Default ${o.shellTimeoutMs}.`,
    },
    timeoutMs: o.maxShellTimeoutMs + o.killGraceMs + 5000,
    // One exec action covers the whole launch: the sandbox checks the program, its arguments
    // and the working folder (and, for a narrowed agent, explains a folder it may not read).
    actions: (a) => [{ kind: 'exec', command: a.command, args: a.args, ...(a.cwd ? { cwd: absolutePath(a.cwd, env.root) } : {}) }],
    execute: later((r) => r.shell, env),
  });
}
