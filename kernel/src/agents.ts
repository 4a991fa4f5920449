import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import { didYouMean, lineOfKey, shape as s } from '@oryxos/schema-kit';
import { FileCache } from './file-cache.ts';
import { assertMarkdownData, parseFrontmatter } from './frontmatter.ts';
import type { PluginSetting } from './plugin.ts';
import type { AgentDefinition, AgentSettings, SkillRef } from './types.ts';

export const DEFAULT_SETTINGS: Readonly<AgentSettings> = Object.freeze({
  max_iterations: 10,
  max_tool_calls: 100,
  max_tokens: 1_000_000,
  max_duration_ms: 1_800_000,
  max_llm_retries: 6,
  loop_detection: Object.freeze({ repeat: 3, pingpong: 4 }),
  parallel_tools: true,
  max_parallel_tools: 4,
  max_history_turns: 20,
  context_tokens: 32_000,
  max_tool_calls_per_step: 16,
  max_tool_output_chars: 20_000,
});

/** Project instructions other tools already read, at the project's root: read before the workspace's own files. */
const PROJECT_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** The workspace's (or the agent's own) bootstrap files, in prompt order. */
const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'USER.md'] as const;

const positiveInt = s.integer({ above: 0 }).optional();
/** The kernel's keys of `settings:` in AGENT.md, and of the `settings` defaults in oryx.config.ts. */
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
}, { unknownKeys: 'ignore' });
const KERNEL_SETTINGS = new Set(Object.keys(DEFAULT_SETTINGS));

const names = s.array(s.string()).optional();
const frontmatterShape = s.object({
  description: s.string().optional(),
  provider: s.string({ min: 1 }).optional(),
  model: s.string({ min: 1 }).optional(),
  tools: names,
  skills: names,
  settings: s.custom('a mapping of settings', (v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
  sandbox: s.custom('an object', (v) => typeof v === 'object' && v !== null).optional(),
}, { unknownKeys: 'ignore' });
const KNOWN = new Set(['description', 'provider', 'model', 'tools', 'skills', 'settings', 'sandbox', 'name']);

/** Settings as written: any subset, `loop_detection` with either threshold. */
export type AgentSettingsInput = Partial<Omit<AgentSettings, 'loop_detection'>> & { loop_detection?: Partial<{ repeat: number; pingpong: number }> | false };

/** Options of {@link AgentLoader}. */
export interface AgentLoaderOptions {
  /** The project folder (the folder of oryx.config.ts): its AGENTS.md and CLAUDE.md are read too. */
  projectDir?: string;
  /** Frontmatter keys enabled plugins read (their `agentKeys`); any other unknown key is an error. */
  agentKeys?: () => Iterable<string>;
  /** Settings enabled plugins declare (their `settings`). */
  pluginSettings?: () => Iterable<[string, PluginSetting]>;
  /** Defaults for every agent's `settings:` (`settings` in oryx.config.ts). */
  settings?: AgentSettingsInput;
}

/**
 * Loads agents from `<workspace>/agents/<name>/AGENT.md`. Files go through a cache that reads
 * again only what changed (mtime or size), and an agent built from unchanged files is the same
 * definition (read-only: a caller that wants to change one copies it); an edit applies to the
 * next run without a restart.
 */
export class AgentLoader {
  private readonly files = new FileCache();
  /** Each agent as last built, with the texts it was built from. */
  private readonly built = new Map<string, { agent: AgentDefinition; from: Map<string, string | undefined> }>();

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

  /** One agent; `ORYX_E_AGENT_NOT_FOUND` listing the known ones, `ORYX_E_AGENT_INVALID` naming the file and field. */
  async load(name: string): Promise<AgentDefinition> {
    const kept = this.built.get(name);
    if (kept && await this.unchanged(kept.from)) return kept.agent;
    const from = new Map<string, string | undefined>();
    const agent = await this.build(name, async (file) => {
      const text = await this.files.text(file);
      from.set(file, text);
      return text;
    });
    this.built.set(name, { agent, from });
    return agent;
  }

  private async unchanged(from: Map<string, string | undefined>): Promise<boolean> {
    for (const [file, text] of from) if ((await this.files.text(file)) !== text) return false;
    return true;
  }

  private async build(name: string, read: (file: string) => Promise<string | undefined>): Promise<AgentDefinition> {
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `"${name}" is not a valid agent name`, {
        hint: 'Agent names are folder names: letters, digits, _ . and -.',
      });
    }
    const dir = path.join(this.agentsDir, name);
    const file = path.join(dir, 'AGENT.md');
    const text = await read(file);
    if (text === undefined) {
      const known = await this.names();
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `No agent "${name}": ${path.relative(process.cwd(), file)} does not exist${didYouMean(name, known)}`, {
        hint: known.length ? `Known agents: ${known.join(', ')}.` : 'Run `oryx init` to create the assistant agent.',
      });
    }
    // YAML only, on the core schema: a `---js` block is an error naming the file, never code.
    const { data, content } = await parseFrontmatter(text, file);
    const found = s.check(frontmatterShape, data);
    if (found) throw invalid(file, text, found.path.join('.') || '(frontmatter)', found.problem);
    const pluginKeys = new Set(this.options.agentKeys?.() ?? []);
    const stray = Object.keys(data).find((k) => !KNOWN.has(k) && !pluginKeys.has(k));
    if (stray !== undefined) throw unknownKey(file, text, stray, [...KNOWN, ...pluginKeys].filter((k) => k !== 'name'));
    return {
      name,
      description: typeof data.description === 'string' ? data.description : '',
      provider: data.provider as string | undefined,
      model: data.model as string | undefined,
      tools: (data.tools as string[] | undefined) ?? [],
      skills: await this.skills(dir, data.skills as string[] | undefined, read),
      settings: this.settings(file, text, data.settings as Record<string, unknown> | undefined),
      sandbox: data.sandbox,
      instructions: content.trim(),
      bootstrap: await this.bootstrap(dir, read),
      dir,
      file,
      extra: Object.fromEntries(Object.entries(data).filter(([k]) => !KNOWN.has(k))),
    };
  }

  /** The kernel's defaults, the config's, the plugins' declared ones, then the agent's own; each key checked. */
  private settings(file: string, text: string, own: Record<string, unknown> | undefined): AgentSettings {
    const declared = new Map(this.options.pluginSettings?.() ?? []);
    const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
    for (const [key, setting] of declared) merged[key] = setting.default;
    for (const [where, layer] of [['oryx.config.ts', this.options.settings], [file, own]] as const) {
      if (!layer) continue;
      const found = s.check(settingsShape, layer);
      if (found) throw invalid(where, where === file ? text : '', `settings.${found.path.join('.')}`, found.problem);
      for (const [key, value] of Object.entries(layer)) {
        if (value === undefined) continue;
        if (KERNEL_SETTINGS.has(key)) {
          merged[key] = key === 'loop_detection' && value !== false ? { ...(merged.loop_detection || DEFAULT_SETTINGS.loop_detection) as object, ...value as object } : value;
          continue;
        }
        const setting = declared.get(key);
        if (!setting) throw unknownKey(where, where === file ? text : '', key, [...KERNEL_SETTINGS, ...declared.keys()].sort(), 'settings');
        const problem = setting.check(value);
        if (problem) throw invalid(where, where === file ? text : '', `settings.${key}`, problem);
        merged[key] = value;
      }
    }
    return merged as AgentSettings;
  }

  /**
   * Project instructions, most stable first: the project's AGENTS.md and CLAUDE.md (what Codex,
   * Claude Code and other tools read), then AGENTS.md, SOUL.md and USER.md — the agent's own
   * copy of each, else the workspace's. A file found twice (a workspace at the project root) is
   * read once.
   */
  private async bootstrap(dir: string, read: (file: string) => Promise<string | undefined>): Promise<AgentDefinition['bootstrap']> {
    const found: AgentDefinition['bootstrap'] = [];
    const project = this.options.projectDir;
    const add = async (name: string, candidates: string[]): Promise<void> => {
      for (const candidate of candidates) {
        if (found.some((f) => f.path === candidate)) return;
        const text = await read(candidate);
        if (text === undefined) continue;
        assertMarkdownData(text, candidate);
        if (text.trim()) found.push({ name, path: candidate, content: text.trim() });
        return;
      }
    };
    if (project) for (const name of PROJECT_FILES) await add(`project ${name}`, [path.join(project, name)]);
    for (const name of BOOTSTRAP_FILES) await add(name, [path.join(dir, name), path.join(this.workspaceDir, name)]);
    return found;
  }

  /**
   * Skills from `<agent>/skills/*.md` (all of them unless `skills:` lists some) and
   * `<workspace>/skills/*.md` (only those `skills:` lists). Only name, description and path
   * are kept: the model reads the body on demand with read_file.
   */
  private async skills(dir: string, allow: string[] | undefined, read: (file: string) => Promise<string | undefined>): Promise<SkillRef[]> {
    const own = await this.readSkills(path.join(dir, 'skills'), read);
    const shared = allow ? await this.readSkills(path.join(this.workspaceDir, 'skills'), read) : [];
    const matches = (skill: SkillRef) => !allow || allow.some((p) => p === skill.name || (p.includes('*') && globRegExp(p).test(skill.name)));
    const seen = new Set<string>();
    return [...own, ...shared].filter((skill) => matches(skill) && !seen.has(skill.name) && seen.add(skill.name));
  }

  private async readSkills(dir: string, read: (file: string) => Promise<string | undefined>): Promise<SkillRef[]> {
    const files = ((await this.files.entries(dir)) ?? []).filter((e) => !e.dir && e.name.endsWith('.md')).map((e) => e.name).sort();
    const skills: SkillRef[] = [];
    for (const f of files) {
      const file = path.join(dir, f);
      const text = await read(file);
      if (text === undefined) continue;
      const { data, content } = await parseFrontmatter(text, file);
      const description = typeof data.description === 'string' ? data.description
        : content.split('\n').find((l) => l.trim() && !l.startsWith('#'))?.trim() ?? '';
      skills.push({ name: typeof data.name === 'string' ? data.name : f.slice(0, -3), description, path: file });
    }
    return skills;
  }
}

/** `*` as a wildcard, everything else literal. */
export function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function invalid(file: string, text: string, field: string, problem: string): OryxError {
  const line = text ? lineOfKey(text, field.split('.').at(-1)!) : undefined;
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: field "${field}" ${problem}`, {
    hint: 'Fix that field in the AGENT.md frontmatter (or the settings of oryx.config.ts); see the kernel README for the format.',
    data: { file, field, line },
  });
}

/** An unknown frontmatter key: where it is, the closest known one and the known ones. */
function unknownKey(file: string, text: string, key: string, known: string[], under?: string): OryxError {
  const line = text ? lineOfKey(text, key) : undefined;
  const where = under ? ` in ${under}` : '';
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: unknown key "${key}"${where}${didYouMean(key, known)} (known keys: ${known.join(', ')})`, {
    hint: 'Fix or remove that key; a key a plugin reads needs that plugin enabled in oryx.config.ts.',
    data: { file, field: under ? `${under}.${key}` : key, line },
  });
}
