import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { absolutePath, atomicTempTarget, canonicalPath, minimalEnv, resolveExecutable } from '@oryxos/plugin-kit';
import { describeAction } from '@oryxos/plugin-kit';
import type { Logger } from '@oryxos/kernel';
import type { SandboxAgent } from '@oryxos/contracts';
import type { ExecLaunch, ExecRequest, LaunchDecision, Sandbox, SandboxAction, SandboxContext, SandboxDecision, SandboxEvent } from '@oryxos/contracts';
import { PROXY_PORT, bwrapArgs, type Mechanism } from './confine.ts';
import { ControlGuard, type GuardTicket } from './control-guard.ts';
import { launchMounts, lookFor, mountable } from './launch-mounts.ts';
import { envAllowed } from './env-rule.ts';
import type { Limits } from './exec-rule.ts';
import { parseRules } from './options.ts';
import { isWithin } from './paths.ts';
import { Policy, stricter, type ExecPlan, type Root, type Verdict } from './policy.ts';
import type { LaunchProxy } from './proxy.ts';
import { StateDir, removeStaleProxyDirs } from './state-dir.ts';

/**
 * An http action with the addresses its host resolved to, which the connection will use: the
 * sandbox checks those instead of resolving again (not in the kernel's type yet).
 */
export type HttpAction = Extract<SandboxAction, { kind: 'http' }> & { addresses?: string[] };

/** What a kind of tool needs from the sandbox: reading or writing files, running programs, HTTP. */
export type CapabilityKind = 'read' | 'write' | 'exec' | 'http';

/** `no program may be run: exec.allow is empty` when the policy's list for `kind` is set and empty (and nothing of that kind asks). */
function emptyList(policy: Policy, kind: CapabilityKind): string | undefined {
  if (policy.asks[kind]?.length) return undefined;
  if (kind === 'read' || kind === 'write') {
    const roots = policy[kind];
    return roots && !roots.length ? `no file may be ${kind === 'read' ? 'read' : 'written'}: files.${kind} is empty` : undefined;
  }
  if (kind === 'exec') return policy.exec && !policy.exec.length ? 'no program may be run: exec.allow is empty' : undefined;
  return policy.http && !policy.http.length ? 'no HTTP request may be made: http.allow is empty' : undefined;
}



/** Agents' policies kept at once; the frontmatter is part of the key, so an edit rebuilds. */
const MAX_CACHED_AGENTS = 64;

/** An agent's `sandbox:` policy, with the agent (its file is named in a denial's reason). */
interface Narrowing { policy: Policy; agent: SandboxAgent }

/** What the sandbox needs from its plugin besides the policy. */
export interface SandboxDeps {
  root: string;
  /** The workspace folder, real (its operator's files are hidden from confined programs). */
  workspace: string;
  log?: Logger;
  /** The confinement mechanism, found on first use (or why there is none). */
  confinement?(): Promise<Mechanism | string>;
  /** Writes an audit row (confined connections). */
  record?(event: SandboxEvent): void;
}

/**
 * The allow-list implementation of the kernel's `Sandbox` service: the global policy from
 * oryx.config.ts, narrowed by the agent's `sandbox:` frontmatter (an action must pass both).
 * `launch` checks a whole process start and returns it confined by the same policy.
 * Never throws: anything unexpected is a denial.
 *
 * @example
 * const decision = await kernel.service('sandbox').enforce({ kind: 'file', op: 'read', path: 'README.md' });
 * if (!decision.allow) console.log(decision.reason);
 */
export class AllowListSandbox implements Sandbox {
  private readonly agents = new Map<string, Promise<Policy | string>>();
  private readonly proxies = new Set<LaunchProxy>();
  /** What launches that have not called `done()` hold (placeholders). */
  private readonly tickets = new Set<GuardTicket>();
  private readonly root: string;
  private readonly log?: Logger;
  private readonly guard: ControlGuard;
  /** What killed processes left (proxy folders, placeholders), removed once, before the first launch. */
  private cleaning: Promise<void> = Promise.resolve();

  constructor(private readonly global: Policy, private readonly deps: SandboxDeps) {
    this.root = deps.root;
    this.log = deps.log;
    this.guard = new ControlGuard({
      root: deps.root,
      workspace: deps.workspace,
      controls: global.controls!,
      writeRoots: () => mountable(global.write ?? []),
      denied: (p) => !!global.denied(p),
      lookFor: () => lookFor(global.deny),
      state: () => StateDir.shared(),
      warn: (m) => this.log?.warn(m),
      record: (e) => this.deps.record?.(e),
    });
  }

  /**
   * Removes what processes killed before their cleanup left behind: their proxy socket folders
   * and their placeholders. Started when the sandbox loads; the first launch waits for it.
   */
  startCleanup(): Promise<void> {
    this.cleaning = (async () => {
      const proxies = await removeStaleProxyDirs();
      const placeholders = await this.guard.removeStale();
      const gone = [...proxies, ...placeholders];
      if (gone.length) this.log?.debug(`removed what ended processes left: ${gone.join(', ')}`);
    })().catch((error: Error) => this.log?.warn(`could not remove what ended processes left: ${error.message}`));
    return this.cleaning;
  }

  async enforce(action: SandboxAction, ctx?: SandboxContext): Promise<SandboxDecision> {
    const verdict = await this.evaluate(action, ctx);
    this.log?.debug(verdict.outcome === 'allow' ? `allow ${describeAction(action)}` : `${verdict.outcome} ${describeAction(action)}: ${verdict.reason}`);
    if (verdict.outcome === 'allow') return { allow: true };
    return verdict.outcome === 'ask' ? { allow: false, ask: true, reason: verdict.reason } : { allow: false, reason: verdict.reason };
  }

  /**
   * The three-valued verdict on an action for the agent: deny beats ask beats allow, across
   * the global policy and the agent's narrowing. An `ask` for an action a person approved for
   * the call (`ctx.approvedActions`, compared as resolved: real path, program, URL) is an allow.
   *
   * @example
   * await sandbox.evaluate({ kind: 'exec', command: 'git', args: ['push'] }) // { outcome: 'ask', reason: '["git","push"] needs approval: …' }
   */
  async evaluate(action: SandboxAction, ctx?: SandboxContext): Promise<Verdict> {
    const verdict = await this.decide(action, ctx);
    return verdict.outcome === 'ask' && await this.approved(action, ctx) ? { outcome: 'allow' } : verdict;
  }

  /** Whether a person approved this action for the call asking: one of `ctx.approvedActions`, as resolved. */
  private async approved(action: SandboxAction, ctx?: SandboxContext): Promise<boolean> {
    const list = ctx?.approvedActions?.filter((a) => a.kind === action.kind) ?? [];
    if (!list.length) return false;
    const key = await sameAction(action, this.root);
    for (const a of list) if (await sameAction(a, this.root) === key) return true;
    return false;
  }

  /**
   * Why no action of `kind` can be allowed for the agent, or undefined when some may be: an
   * empty allow-list (in the config or the agent's frontmatter), or programs that cannot be
   * confined. For a one-line warning when an agent's tool can only be denied.
   *
   * @example
   * await sandbox.unavailable('exec', agent) // 'no program may be run: exec.allow is empty in sandbox({...}) of oryx.config.ts'
   */
  async unavailable(kind: CapabilityKind, agent?: SandboxAgent): Promise<string | undefined> {
    const narrowed = await this.narrowing(agent);
    if (typeof narrowed === 'string') return narrowed;
    const global = emptyList(this.global, kind);
    if (global) return `${global} in sandbox({...}) of oryx.config.ts`;
    const own = narrowed && emptyList(narrowed, kind);
    if (own) return `${own} in the sandbox: frontmatter of ${this.shown(agent!.file)}`;
    if (kind !== 'exec' || !this.global.confine) return undefined;
    if (process.platform !== 'linux') return `programs can only be confined on Linux; set sandbox({ confine: false }) to run them unconfined`;
    const mechanism = await (this.deps.confinement?.() ?? Promise.resolve('no confinement mechanism is configured'));
    return typeof mechanism === 'string' ? `${mechanism}, so programs cannot be confined: install bubblewrap, or set sandbox({ confine: false })` : undefined;
  }

  /** Closes the proxies of launches that were never told `done()`. */
  async close(): Promise<void> {
    await Promise.all([...this.proxies].map((p) => p.close()));
    this.proxies.clear();
    await Promise.all([...this.tickets].map((t) => this.guard.finish(t)));
    this.tickets.clear();
    await this.guard.close();
  }

  /** Adds a control file no agent may write (a plugin's own). */
  protect(file: string, why: string): void {
    this.global.controls?.add({ path: path.resolve(this.root, file), why });
  }

  /** Denies a file of the operator's (the database) to every agent, reads too, by path and identity. */
  denyOperator(file: string, why: string): Promise<void> {
    return this.global.addDeny(path.resolve(this.root, file), why);
  }

  async launch(request: ExecRequest, ctx?: SandboxContext): Promise<LaunchDecision> {
    const action: SandboxAction = { kind: 'exec', ...request };
    try {
      const narrowed = await this.narrowings(ctx);
      if (typeof narrowed === 'string') return { allow: false, reason: narrowed };
      const globalPlan = await this.global.planExec(action);
      if (typeof globalPlan === 'string') return { allow: false, reason: globalPlan };
      const plans: ExecPlan[] = [globalPlan];
      let asking = globalPlan.ask;
      for (const { policy, agent } of narrowed) {
        const plan = await policy.planExec(action);
        if (typeof plan === 'string') return { allow: false, reason: this.narrowedReason(plan, agent) };
        plans.push(plan);
        asking ??= plan.ask && this.narrowedReason(plan.ask, agent);
      }
      if (asking && !await this.approved(action, ctx)) {
        this.log?.debug(`ask ${describeAction(action)}: ${asking}`);
        return { allow: false, ask: true, reason: asking };
      }
      this.log?.debug(`allow ${describeAction(action)}`);
      const [plan] = plans as [ExecPlan];
      const env = { ...minimalEnv(), ...inherited(plans), ...request.env };
      if (!this.global.confine) {
        return { allow: true, launch: unconfined(plan.program, request.args, plan.cwd, env) };
      }
      return await this.confined(plan, request, env, plans, narrowed, ctx);
    } catch (error) {
      return { allow: false, reason: `the sandbox could not decide (${(error as Error).message}), so the process is not started` };
    }
  }

  private async confined(plan: ExecPlan, request: ExecRequest, env: Record<string, string>, plans: ExecPlan[], narrowed: Narrowing[], ctx?: SandboxContext): Promise<LaunchDecision> {
    if (process.platform !== 'linux') {
      return { allow: false, reason: `programs can only be confined on Linux (bubblewrap); on ${process.platform}, set sandbox({ confine: false }) in oryx.config.ts to run them unconfined` };
    }
    const mechanism = await (this.deps.confinement?.() ?? Promise.resolve('no confinement mechanism is configured'));
    if (typeof mechanism === 'string') {
      return { allow: false, reason: `${mechanism}. Programs run confined by the sandbox policy: install bubblewrap (apt-get install bubblewrap), or set sandbox({ confine: false }) in oryx.config.ts to run them with your full rights` };
    }
    const limits = tightest(plans.map((p) => p.limits));
    if (limits && !mechanism.prlimit) return { allow: false, reason: 'this program has exec limits, and prlimit (util-linux) was not found to apply them' };
    const policies = narrowed.map((n) => n.policy);
    const read = policies.reduce((roots, p) => intersect(roots, p.read), this.global.read ?? []);
    // A folder cannot be made write-only: a write root is mounted (writable) only where it may also be read.
    const write = intersect(policies.reduce((roots, p) => intersect(roots, p.write), this.global.write ?? []), read);
    const http = this.global.http?.length && policies.every((p) => !p.http || p.http.length);
    let proxy: LaunchProxy | undefined;
    let pid: number | undefined;
    const command = JSON.stringify([plan.program, ...request.args]);
    // Without socat there is no way into the sandbox's network namespace: no network at all (warned at start).
    if (http && mechanism.socat) {
      const { LaunchProxy } = await import('./proxy.ts'); // node:http only for a launch that has a network
      proxy = await LaunchProxy.open({
        decide: async (url, method, addresses) => {
          // A confined program cannot stop to wait for a person: what would ask is refused.
          const action: HttpAction = { kind: 'http', url, method, ...(addresses ? { addresses } : {}) };
          const verdict = await this.decide(action, ctx);
          if (verdict.outcome === 'allow') return undefined;
          return verdict.outcome === 'ask' ? `${verdict.reason}, and a confined program cannot ask for approval` : verdict.reason;
        },
        record: (e) => this.deps.record?.({
          ...e, origin: `proxy for ${ctx?.origin ?? 'a process'}`, agent: ctx?.agent?.name, sessionId: ctx?.run?.sessionId, runId: ctx?.run?.runId,
          toolCallId: ctx?.toolCallId, pid, process: command,
        }),
      });
      this.proxies.add(proxy);
      const to = `http://127.0.0.1:${PROXY_PORT}`;
      Object.assign(env, { HTTP_PROXY: to, HTTPS_PROXY: to, http_proxy: to, https_proxy: to, ALL_PROXY: to, all_proxy: to });
    }
    env.TMPDIR = '/tmp';
    // A root that does not exist (yet) cannot be mounted; nothing there is visible.
    const readRoots = await mountable(read);
    const writeRoots = await mountable(write);
    const optedIn = (p: string) => this.global.controls!.optedIn(p) && policies.every((n) => !n.controls || n.controls.optedIn(p));
    await this.cleaning;
    const controls = await this.guard.prepare(writeRoots, { origin: ctx?.origin, optedIn });
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      this.tickets.delete(controls.ticket);
      if (proxy) { this.proxies.delete(proxy); await proxy.close(); }
      await this.guard.finish(controls.ticket);
    };
    this.tickets.add(controls.ticket);
    try {
      const mounts = await launchMounts({ read: readRoots, write: writeRoots, workspace: this.deps.workspace, policies: [this.global, ...policies], controls });
      const args = await bwrapArgs(mechanism, {
        program: plan.program, args: request.args, cwd: plan.cwd, read: readRoots, write: writeRoots, ...mounts,
        programDirs: [...new Set([path.dirname(plan.program), path.dirname(await realpath(plan.program))])],
        proxySocket: proxy?.socket, limits,
      });
      return {
        allow: true,
        launch: { file: mechanism.bwrap, args, cwd: plan.cwd, env, program: plan.program, confined: true, started(p) { pid = p; }, done: release },
      };
    } catch (error) {
      await release();
      throw error;
    }
  }

  /**
   * The verdict of the policies: the strictest of the global one, the agent's narrowing and
   * the narrowings of the agents whose runs started this one (a sub-agent's callers).
   */
  private async decide(action: SandboxAction, ctx?: SandboxContext): Promise<Verdict> {
    try {
      const narrowed = await this.narrowings(ctx);
      if (typeof narrowed === 'string') return { outcome: 'deny', reason: narrowed };
      let verdict = await this.global.check(action);
      for (const { policy, agent } of narrowed) {
        if (verdict.outcome === 'deny') return verdict;
        const own = await policy.check(action);
        verdict = stricter(verdict, own.outcome === 'allow' ? own : { ...own, reason: this.narrowedReason(own.reason, agent) });
      }
      return verdict;
    } catch (error) {
      return { outcome: 'deny', reason: `the sandbox could not decide (${(error as Error).message}), so the action is denied` };
    }
  }

  private narrowedReason(reason: string, agent: SandboxAgent): string {
    return `${reason} (narrowed by the sandbox: frontmatter of ${this.shown(agent.file)})`;
  }

  /**
   * The narrowings that apply to a request: those of the agents whose runs started this one
   * (`run.callers`, outermost first), then the asking agent's own; or why every action is denied
   * (a broken `sandbox:` of any of them).
   */
  private async narrowings(ctx?: SandboxContext): Promise<Narrowing[] | string> {
    const agents = [...(ctx?.run?.callers ?? []), ctx?.agent];
    const out: Narrowing[] = [];
    for (const agent of agents) {
      const policy = await this.narrowing(agent);
      if (typeof policy === 'string') return policy;
      if (policy) out.push({ policy, agent: agent! });
    }
    return out;
  }

  /** The agent's own policy, undefined when it does not narrow, or why every action of it is denied. */
  private narrowing(agent?: SandboxAgent): Promise<Policy | string | undefined> {
    if (!agent || agent.sandbox === undefined || agent.sandbox === null) return Promise.resolve(undefined);
    const key = `${agent.file}\0${JSON.stringify(agent.sandbox)}`;
    let entry = this.agents.get(key);
    if (!entry) {
      if (this.agents.size >= MAX_CACHED_AGENTS) this.agents.clear();
      entry = this.buildAgent(agent);
      this.agents.set(key, entry);
    }
    return entry;
  }

  private async buildAgent(agent: SandboxAgent): Promise<Policy | string> {
    const broken = (field: string, message: string) =>
      `${this.shown(agent.file)}: sandbox.${field} ${message}; every action of agent "${agent.name}" is denied until its sandbox: frontmatter is fixed`;
    const parsed = parseRules(agent.sandbox);
    if (!parsed.ok) return broken(parsed.field, parsed.message);
    if (parsed.rules.confine !== undefined) return broken('confine', 'can only be set in oryx.config.ts, not in AGENT.md');
    try {
      return await Policy.build(parsed.rules, { root: this.root, scope: 'agent', guards: this.global.controls?.list });
    } catch (error) {
      return broken((error as { field?: string }).field ?? '(frontmatter)', (error as Error).message);
    }
  }

  private shown(file: string): string {
    const rel = path.relative(this.root, file);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  }
}

function unconfined(program: string, args: string[], cwd: string, env: Record<string, string>): ExecLaunch {
  return { file: program, args, cwd, env, program, confined: false, started() {}, async done() {} };
}

/** Variables of this process that every policy's `exec.env` allows (not the launcher's own). */
function inherited(plans: ExecPlan[]): Record<string, string> {
  const env: Record<string, string> = {};
  const lists = plans.map((p) => p.env).filter((l): l is string[] => l !== undefined);
  if (!lists.length || !lists[0]!.length) return env;
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && lists.every((l) => envAllowed(l, name))) env[name] = value;
  }
  return env;
}

/** The parts of `global` roots an agent's roots leave (all of them when it does not narrow). */
function intersect(global: Root[], agent: Root[] | undefined): Root[] {
  if (!agent) return global;
  const out: Root[] = [];
  for (const g of global) for (const a of agent) {
    if (isWithin(a.path, g.path)) out.push(a);
    else if (isWithin(g.path, a.path)) out.push(g);
  }
  return out;
}

/** The lowest of each limit across the policies. */
function tightest(list: (Limits | undefined)[]): Limits | undefined {
  const out: Limits = {};
  for (const l of list) for (const key of ['cpuSeconds', 'memoryMb', 'processes'] as const) {
    const v = l?.[key];
    if (v !== undefined) out[key] = Math.min(out[key] ?? v, v);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * An action as the sandbox resolves it, as one string: a file by operation and real path (an
 * atomic write's temp file as the file it replaces), a program by its real path, arguments,
 * working folder and variables, a URL as the URL parser spells it. Two spellings of one action
 * give the same string, so an approval covers the action however the tool spells it at the
 * point of I/O.
 */
async function sameAction(action: SandboxAction, root: string): Promise<string> {
  const real = async (p: string) => {
    const c = await canonicalPath(absolutePath(p, root)).catch(() => path.resolve(root, p));
    return atomicTempTarget(c) ?? c;
  };
  switch (action.kind) {
    case 'file': return JSON.stringify(['file', action.op, await real(action.path)]);
    case 'exec': {
      const cwd = await real(action.cwd ?? '.');
      const program = (await resolveExecutable(action.command, cwd)) ?? action.command;
      return JSON.stringify(['exec', program, action.args, cwd, Object.entries(action.env ?? {}).sort()]);
    }
    case 'http': {
      let url = String(action.url);
      try { url = new URL(url).href; } catch { /* compared as given */ }
      return JSON.stringify(['http', String(action.method).toUpperCase(), url]);
    }
    case 'smtp': return JSON.stringify(['smtp', String(action.host).toLowerCase(), action.port]);
    default: return JSON.stringify(action);
  }
}
