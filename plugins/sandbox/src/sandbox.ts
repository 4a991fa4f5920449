import path from 'node:path';
import type { AgentDefinition, Logger, Sandbox, SandboxAction, SandboxDecision } from '@oryxos/kernel';
import { parseRules } from './options.ts';
import { Policy } from './policy.ts';

/** Agents' policies kept at once; the frontmatter is part of the key, so an edit rebuilds. */
const MAX_CACHED_AGENTS = 64;

/**
 * The allow-list implementation of the kernel's `Sandbox` service: the global policy from
 * oryx.config.ts, narrowed by the agent's `sandbox:` frontmatter (an action must pass both).
 * Never throws: anything unexpected is a denial.
 *
 * @example
 * const decision = await kernel.service('sandbox').enforce({ kind: 'file', op: 'read', path: 'README.md' });
 * if (!decision.allow) console.log(decision.reason);
 */
export class AllowListSandbox implements Sandbox {
  private readonly agents = new Map<string, Promise<Policy | string>>();

  constructor(private readonly global: Policy, private readonly root: string, private readonly log?: Logger) {}

  async enforce(action: SandboxAction, ctx?: { agent?: AgentDefinition }): Promise<SandboxDecision> {
    let reason: string | undefined;
    try {
      const agent = ctx?.agent;
      const narrowed = agent && agent.sandbox !== undefined && agent.sandbox !== null ? await this.forAgent(agent) : undefined;
      if (typeof narrowed === 'string') reason = narrowed;
      else {
        reason = await this.global.check(action);
        if (!reason && narrowed) {
          const own = await narrowed.check(action);
          if (own) reason = `${own} (narrowed by the sandbox: frontmatter of ${this.shown(agent!.file)})`;
        }
      }
    } catch (error) {
      reason = `the sandbox could not decide (${(error as Error).message}), so the action is denied`;
    }
    this.log?.debug(`sandbox: ${reason ? `deny ${describe(action)}: ${reason}` : `allow ${describe(action)}`}`);
    return reason ? { allow: false, reason } : { allow: true };
  }

  private forAgent(agent: AgentDefinition): Promise<Policy | string> {
    const key = `${agent.file}\0${JSON.stringify(agent.sandbox)}`;
    let entry = this.agents.get(key);
    if (!entry) {
      if (this.agents.size >= MAX_CACHED_AGENTS) this.agents.clear();
      entry = this.buildAgent(agent);
      this.agents.set(key, entry);
    }
    return entry;
  }

  private async buildAgent(agent: AgentDefinition): Promise<Policy | string> {
    const broken = (field: string, message: string) =>
      `${this.shown(agent.file)}: sandbox.${field} ${message}; every action of agent "${agent.name}" is denied until its sandbox: frontmatter is fixed`;
    const parsed = parseRules(agent.sandbox);
    if (!parsed.ok) return broken(parsed.field, parsed.message);
    try {
      return await Policy.build(parsed.rules, { root: this.root, scope: 'agent' });
    } catch (error) {
      return broken((error as { field?: string }).field ?? '(frontmatter)', (error as Error).message);
    }
  }

  private shown(file: string): string {
    const rel = path.relative(this.root, file);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
  }
}

function describe(action: SandboxAction): string {
  switch (action?.kind) {
    case 'file': return `${action.op} ${JSON.stringify(action.path)}`;
    case 'exec': return `exec ${JSON.stringify([action.command, ...(action.args ?? [])])}`;
    case 'http': return `http ${action.method} ${action.url}`;
    case 'smtp': return `smtp ${action.host}:${action.port}`;
    default: return 'unknown action';
  }
}
