/**
 * What the sandbox checks and answers. Every cross-boundary action a tool or a plugin performs
 * (a file read or write, a process, an HTTP request, an SMTP connection) is one of these.
 */
export type SandboxAction =
  | { kind: 'file'; op: 'read' | 'write'; path: string }
  | ExecAction
  /**
   * `addresses`: what the caller resolved the host to, once, and will connect to; the sandbox
   * judges those (a name that resolves to a private address is denied even when the name is
   * allowed), so a second lookup cannot point the request elsewhere.
   */
  | { kind: 'http'; url: string; method: string; addresses?: string[] }
  | { kind: 'smtp'; host: string; port: number };

/**
 * Starting a process, checked as a whole: the program, its arguments, the folder it runs in
 * and every environment variable its launcher sets. A sandbox that checked only the program
 * and arguments would let `GIT_CONFIG_*` or `LD_PRELOAD` turn an allowed `git status` into
 * anything.
 */
export interface ExecAction {
  kind: 'exec';
  /** A name looked up on PATH (`git`) or a path (relative to `cwd`). */
  command: string;
  args: string[];
  /** The working folder, absolute or relative to the project folder. Default: the project folder. */
  cwd?: string;
  /** Variables the launcher sets on top of the minimal environment; each must be allowed. */
  env?: Record<string, string>;
}

/** A process a plugin wants to start: what {@link Sandbox.launch} checks. */
export type ExecRequest = Omit<ExecAction, 'kind'>;

/**
 * How to start a process the sandbox allowed. Spawn `file` with `args`, `cwd` and exactly
 * `env` (no inherited environment), without a shell; call `started(pid)` once it runs and
 * `done()` once it has ended. When `confined`, `file` is the confinement program (bubblewrap)
 * and `program` runs inside it.
 */
export interface ExecLaunch {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The program the sandbox checked, as an absolute path. */
  program: string;
  /** Whether it runs under an OS confinement built from the policy. */
  confined: boolean;
  /** Tells the sandbox the process id, so what the process does (proxied connections) is audited with it. */
  started(pid: number | undefined): void;
  /** Releases what the launch holds (the proxy socket); safe to call twice. */
  done(): Promise<void>;
}

/**
 * The sandbox's answer: allowed, denied, or denied until a person approves it (`ask`; the
 * reason says why it asks). An action the context's `approved` covers is allowed instead.
 */
export type SandboxDecision = { allow: true } | { allow: false; reason: string; ask?: boolean };
export type LaunchDecision = { allow: true; launch: ExecLaunch } | { allow: false; reason: string; ask?: boolean };

/** As much of an agent as the sandbox reads: its `sandbox:` frontmatter narrows the policy. */
export interface SandboxAgent {
  name: string;
  /** Its AGENT.md, for messages. */
  file: string;
  /** The raw `sandbox:` frontmatter. */
  sandbox?: unknown;
}

/** As much of a run as the sandbox reads. */
export interface SandboxRun {
  runId: string;
  sessionId: string;
  agent: SandboxAgent;
  /** The agents of the runs that started this one (a sub-agent's callers), outermost first: each narrows it too. */
  callers?: readonly SandboxAgent[];
  user?: string;
}

/** Who asks the sandbox: the agent (its `sandbox:` narrows the policy), the run and what in it. */
export interface SandboxContext {
  agent?: SandboxAgent;
  run?: SandboxRun;
  toolCallId?: string;
  /** What asks, for the audit trail: `tool shell`, `mcp server filesystem`, `scheduler task nightly`. */
  origin?: string;
  /**
   * The actions a person approved for the tool call asking: an action that would `ask` and is
   * one of them (as the sandbox resolves it: the same real path, program, URL) is allowed.
   */
  approvedActions?: SandboxAction[];
  /**
   * Only asking what the answer would be (an approvals plugin finding what a call needs): the
   * decision is not audited, since the call itself is checked again when it runs.
   */
  probe?: boolean;
}

/**
 * The sandbox service. With no sandbox plugin, the kernel's default denies everything.
 * A stronger implementation (container, microVM) replaces the plugin without touching callers.
 * The sandbox audits its own denials (and confined connections) through the `audit` service.
 */
export interface Sandbox {
  enforce(action: SandboxAction, ctx?: SandboxContext): Promise<SandboxDecision>;
  /**
   * Checks a whole process launch and returns how to start it (confined by the policy, with
   * only the environment the policy allows). A sandbox that cannot start processes denies.
   */
  launch(request: ExecRequest, ctx?: SandboxContext): Promise<LaunchDecision>;
  /**
   * Adds files the sandbox must never let an agent write (a plugin's own control files, such
   * as a servers file outside the workspace). It can only narrow the policy.
   */
  protect?(path: string, why: string): void;
  /**
   * Why no action of `kind` can be allowed for the agent at all (`exec.allow` is empty, no HTTP
   * host is listed), or undefined when some could: a tool plugin warns once that its tool is
   * unavailable instead of letting every call be denied.
   */
  unavailable?(kind: 'read' | 'write' | 'exec' | 'http' | 'smtp', agent?: SandboxAgent): Promise<string | undefined>;
}

/** One sandbox decision worth keeping: every denial, and every connection a confined process makes. */
export interface SandboxEvent {
  /** `ask`: a tool call waits for a person; `allow`/`deny` after it also say who decided (`origin`). */
  decision: 'allow' | 'deny' | 'ask';
  /**
   * The action kind, `connect` for a connection through the confinement proxy, `tool` for a
   * call a rule asks about, `door` for someone a door refused (a sender not on its allow-list).
   */
  kind: SandboxAction['kind'] | 'connect' | 'tool' | 'door';
  /** What was asked for: a path, a command line, a URL, host:port. */
  target: string;
  reason?: string;
  origin?: string;
  agent?: string;
  sessionId?: string;
  runId?: string;
  toolCallId?: string;
  /** The process a confined connection came from. */
  pid?: number;
  /** Its command line. */
  process?: string;
}

