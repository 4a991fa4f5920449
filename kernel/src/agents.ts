import path from 'node:path';
import { OryxError } from './errors.ts';
import { FileCache, RECHECK_MS } from './file-cache.ts';
import { assertMarkdownData, parseFrontmatter } from './frontmatter.ts';
import { shape as s } from '@oryxos/schema-kit';
import { didYouMean, lineOfKey } from './suggest.ts';
import { DEFAULT_LOOP_DETECTION } from './loop-guard.ts';
import type { AgentDefinition, AgentRef, AgentSettings, LoopDetectionSettings, SkillRef } from './types.ts';

export const DEFAULT_SETTINGS: AgentSettings = Object.freeze({
  max_iterations: 10,
  max_tool_calls: 100,
  max_tokens: 1_000_000,
  max_duration_ms: 1_800_000,
  max_llm_retries: 6,
  loop_detection: DEFAULT_LOOP_DETECTION,
  parallel_tools: true,
  max_parallel_tools: 4,
  max_history_turns: 20,
  context_tokens: 32_000,
  max_tool_calls_per_step: 16,
  max_tool_output_chars: 20_000,
  max_agent_depth: 2,
  pending_approval: 'refuse',
});

export const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'USER.md'] as const;

const positiveInt = s.integer({ above: 0 }).optional();
/** `settings:` of AGENT.md, and the `settings` defaults of oryx.config.ts. */
export const settingsShape = s.object({
  max_iterations: positiveInt,
  max_tool_calls: positiveInt,
  max_tokens: positiveInt,
  max_duration_ms: positiveInt,
  max_llm_retries: s.integer({ min: 0 }).optional(),
  loop_detection: s.union(s.object({ repeat: s.integer({ min: 2 }).optional(), pingpong: s.integer({ min: 4 }).optional() }), s.literal(false)).optional(),
  parallel_tools: s.boolean().optional(),
  max_parallel_tools: positiveInt,
  max_history_turns: positiveInt,
  context_tokens: s.integer({ min: 256 }).optional(),
  max_tool_calls_per_step: positiveInt,
  max_tool_output_chars: s.integer({ min: 1000 }).optional(),
  max_agent_depth: s.integer({ min: 0 }).optional(),
  pending_approval: s.literal('refuse', 'deny').optional(),
});
const names = s.array(s.string()).optional();
const frontmatterShape = s.object({
  description: s.string().optional(),
  provider: s.string({ min: 1 }).optional(),
  model: s.string({ min: 1 }).optional(),
  tools: names,
  skills: names,
  agents: names,
  settings: settingsShape.optional(),
  sandbox: s.custom('an object', (v) => typeof v === 'object' && v !== null).optional(),
  approve: names,
}, { unknownKeys: 'ignore' });
const KNOWN = new Set(['description', 'provider', 'model', 'tools', 'skills', 'agents', 'settings', 'sandbox', 'approve', 'name']);

/** Options of {@link AgentLoader}. */
export interface AgentLoaderOptions {
  /** Frontmatter keys enabled plugins read (their `agentKeys`); any other unknown key is an error. */
  agentKeys?: () => Iterable<string>;
  /** Defaults for every agent's `settings:` (`settings` in oryx.config.ts), over {@link DEFAULT_SETTINGS}. */
  settings?: AgentSettingsInput;
}

/** Settings as written: any subset, `loop_detection` with either threshold. */
export type AgentSettingsInput = Partial<Omit<AgentSettings, 'loop_detection'>> & { loop_detection?: Partial<LoopDetectionSettings> | false };

/** Settings over defaults; `loop_detection` merges threshold by threshold. */
export function mergeSettings(base: AgentSettings, ...layers: (AgentSettingsInput | undefined)[]): AgentSettings {
  let merged = base;
  for (const layer of layers) {
    if (!layer) continue;
    const loop = layer.loop_detection;
    merged = {
      ...merged, ...layer,
      loop_detection: loop === undefined ? merged.loop_detection : loop === false ? false : { ...(merged.loop_detection || DEFAULT_LOOP_DETECTION), ...loop },
    } as AgentSettings;
  }
  return merged;
}

/**
 * Loads agents from `<workspace>/agents/<name>/AGENT.md`. The files (AGENT.md, bootstrap files,
 * skills) go through a cache that trusts what it read for 250 ms and then re-reads only what
 * changed (mtime or size); an agent built from them is kept as long, so the runs of a busy
 * agent share one definition (read-only: a caller that wants to change one copies it). An edit
 * applies to the next run without a restart, within half a second.
 */
export class AgentLoader {
  private readonly files = new FileCache();
  /** Each agent as last built, and when: trusted for {@link RECHECK_MS} like the files. */
  private readonly built = new Map<string, { agent: AgentDefinition; at: number }>();

  constructor(readonly workspaceDir: string, private readonly options: AgentLoaderOptions = {}) {}

  get agentsDir(): string { return path.join(this.workspaceDir, 'agents'); }

  /** Names of the agent folders that have an AGENT.md. */
  async names(): Promise<string[]> {
    const entries = (await this.files.entries(this.agentsDir)) ?? [];
    const found = await Promise.all(entries.map(async (e) => e.dir
      && (await this.files.entries(path.join(this.agentsDir, e.name)))?.some((f) => f.name === 'AGENT.md' && !f.dir)));
    return entries.filter((_, i) => found[i]).map((e) => e.name).sort();
  }

  async list(): Promise<AgentDefinition[]> {
    return Promise.all((await this.names()).map((name) => this.load(name)));
  }

  /**
   * The agent and its sub-agents (`agents:`), all of them checked: every name must be an agent
   * (`ORYX_E_AGENT_INVALID` with the closest name) and no agent may reach itself again
   * (`ORYX_E_AGENT_CYCLE` naming the path and the file).
   */
  async load(name: string): Promise<AgentDefinition> {
    const root = await this.read(name);
    const known = new Map([[root.name, root]]);
    const walk = async (agent: AgentDefinition, trail: string[]): Promise<void> => {
      for (const ref of agent.agents) {
        if (trail.includes(ref.name)) {
          const cycle = [...trail.slice(trail.indexOf(ref.name)), ref.name];
          throw new OryxError('ORYX_E_AGENT_CYCLE', `${agent.file}: agents: ${cycle.join(' → ')} is a cycle`, {
            hint: `Remove "${ref.name}" from agents: in ${agent.file}: an agent cannot call itself, directly or through its sub-agents.`,
            data: { file: agent.file, field: 'agents', cycle },
          });
        }
        let sub = known.get(ref.name);
        if (!sub) known.set(ref.name, sub = await this.read(ref.name));
        ref.description = sub.description;
        await walk(sub, [...trail, ref.name]);
      }
    };
    await walk(root, [root.name]);
    return root;
  }

  /** One AGENT.md, its sub-agents named but not read; built again once {@link RECHECK_MS} is over. */
  private async read(name: string): Promise<AgentDefinition> {
    const kept = this.built.get(name);
    if (kept && performance.now() - kept.at < RECHECK_MS) return kept.agent;
    const at = performance.now();
    const agent = await this.build(name);
    this.built.set(name, { agent, at });
    return agent;
  }

  private async build(name: string): Promise<AgentDefinition> {
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `"${name}" is not a valid agent name`, {
        hint: 'Agent names are folder names: letters, digits, _ . and -.',
      });
    }
    const dir = path.join(this.agentsDir, name);
    const file = path.join(dir, 'AGENT.md');
    const text = await this.files.text(file);
    if (text === undefined) {
      const known = await this.names();
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `No agent "${name}": ${path.relative(process.cwd(), file)} does not exist`, {
        hint: known.length ? `Known agents: ${known.join(', ')}.` : 'Run `oryx init` to create the assistant agent.',
      });
    }
    // YAML only, on the core schema: a `---js` block is an error naming the file, never code.
    const parsed = await parseFrontmatter(text, file);
    const data = parsed.data;
    const found = s.check(frontmatterShape, data);
    if (found) {
      const field = found.path.join('.') || '(frontmatter)';
      if (found.problem === 'must be removed') throw unknownKey(file, text, String(found.path.at(-1)), found.known ?? [], field);
      throw new OryxError('ORYX_E_AGENT_INVALID', `${file}: field "${field}" ${found.problem}`, {
        hint: 'Fix that field in the AGENT.md frontmatter; see the kernel README for the format.',
        data: { file, field },
      });
    }
    const pluginKeys = new Set(this.options.agentKeys?.() ?? []);
    const stray = Object.keys(data).find((k) => !KNOWN.has(k) && !pluginKeys.has(k));
    if (stray !== undefined) throw unknownKey(file, text, stray, [...KNOWN, ...pluginKeys].filter((k) => k !== 'name'), stray);
    const settings = mergeSettings(DEFAULT_SETTINGS, this.options.settings, data.settings as AgentSettingsInput | undefined);
    const extra = Object.fromEntries(Object.entries(data).filter(([k]) => !KNOWN.has(k)));
    const agents = await this.refs(file, text, (data.agents as string[] | undefined) ?? []);
    return {
      name,
      description: typeof data.description === 'string' ? data.description : '',
      provider: data.provider as string | undefined,
      model: data.model as string | undefined,
      tools: (data.tools as string[] | undefined) ?? [],
      skills: await this.skills(dir, data.skills as string[] | undefined),
      agents,
      settings,
      sandbox: data.sandbox,
      approve: (data.approve as string[] | undefined) ?? [],
      instructions: parsed.content.trim(),
      bootstrap: await this.bootstrap(dir),
      dir,
      file,
      extra,
    };
  }

  /** The `agents:` names as references; a name with no AGENT.md is an error with the closest one. */
  private async refs(file: string, text: string, names: string[]): Promise<AgentRef[]> {
    if (names.length === 0) return [];
    const known = await this.names();
    return names.map((name) => {
      if (!known.includes(name)) {
        const line = lineOfKey(text, 'agents');
        throw new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: agents: no agent "${name}"${didYouMean(name, known)}`, {
          hint: `Fix the name in agents: (${known.length ? `known agents: ${known.join(', ')}` : 'there are no agents yet'}), or create .oryxos/agents/${name}/AGENT.md.`,
          data: { file, field: 'agents', agent: name, line },
        });
      }
      return { name, description: '', file: path.join(this.agentsDir, name, 'AGENT.md') };
    });
  }

  /** AGENTS.md, SOUL.md, USER.md: the agent's own copy first, then the workspace's. */
  private async bootstrap(dir: string): Promise<AgentDefinition['bootstrap']> {
    const found: AgentDefinition['bootstrap'] = [];
    for (const name of BOOTSTRAP_FILES) {
      for (const candidate of [path.join(dir, name), path.join(this.workspaceDir, name)]) {
        const text = await this.files.text(candidate);
        if (text === undefined) continue;
        assertMarkdownData(text, candidate);
        found.push({ name, path: candidate, content: text.trim() });
        break;
      }
    }
    return found;
  }

  /**
   * Skills from `<agent>/skills/*.md` (all of them unless `skills:` lists some) and
   * `<workspace>/skills/*.md` (only those `skills:` lists). Only name, description and path
   * are kept: the model reads the body on demand with read_file.
   */
  private async skills(dir: string, allow: string[] | undefined): Promise<SkillRef[]> {
    const own = await this.readSkills(path.join(dir, 'skills'));
    const shared = allow ? await this.readSkills(path.join(this.workspaceDir, 'skills')) : [];
    const matches = (s: SkillRef) => !allow || allow.some((p) => p === s.name || (p.includes('*') && new RegExp('^' + p.split('*').map(escape).join('.*') + '$').test(s.name)));
    const seen = new Set<string>();
    return [...own, ...shared].filter((s) => matches(s) && !seen.has(s.name) && seen.add(s.name));
  }

  private async readSkills(dir: string): Promise<SkillRef[]> {
    const files = ((await this.files.entries(dir)) ?? []).filter((e) => !e.dir && e.name.endsWith('.md')).map((e) => e.name).sort();
    const skills = await Promise.all(files.map(async (f): Promise<SkillRef | undefined> => {
      const file = path.join(dir, f);
      const text = await this.files.text(file);
      if (text === undefined) return undefined;
      const { data, content } = await parseFrontmatter(text, file);
      const description = typeof data.description === 'string' ? data.description
        : content.split('\n').find((l) => l.trim() && !l.startsWith('#'))?.trim() ?? '';
      return { name: typeof data.name === 'string' ? data.name : f.slice(0, -3), description, path: file };
    }));
    return skills.filter((s) => s !== undefined);
  }
}

/** An unknown frontmatter key: where it is, the closest known one and the known ones. */
function unknownKey(file: string, text: string, key: string, known: string[], field: string): OryxError {
  const line = lineOfKey(text, key);
  const nested = field.includes('.') ? ` in ${field.slice(0, field.lastIndexOf('.'))}` : '';
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: unknown key "${key}"${nested}${didYouMean(key, known)} (known keys: ${known.join(', ')})`, {
    hint: 'Fix or remove that key in the AGENT.md frontmatter; a key a plugin reads needs that plugin enabled in oryx.config.ts.',
    data: { file, field, line },
  });
}

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
