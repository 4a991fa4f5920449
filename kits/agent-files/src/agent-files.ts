import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import { didYouMean, lineOfKey, matchesToolPattern, shape as s } from '@oryxos/schema-kit';
import { FileCache } from './file-cache.ts';
import { assertMarkdownData, parseFrontmatter } from './frontmatter.ts';

/** A skill an agent may read on demand: only its name, description and path are kept. */
export interface SkillFile { name: string; description: string; path: string }

/** An agent as its files define it; `settings` is what the `settings` option made of its `settings:`. */
export interface AgentFile<Settings> {
  name: string;
  description: string;
  provider?: string;
  model?: string;
  /** Allow-list of tool names; `*` globs (`filesystem__*`). Empty = no tools. */
  tools: string[];
  skills: SkillFile[];
  settings: Settings;
  /** The raw `sandbox:` frontmatter, interpreted by the sandbox plugin. */
  sandbox?: unknown;
  /** The body of AGENT.md: the system prompt. */
  instructions: string;
  /** Project instructions found (the project's AGENTS.md or CLAUDE.md, the workspace's AGENTS.md, SOUL.md, USER.md), in order. */
  bootstrap: { name: string; path: string; content: string }[];
  dir: string;
  file: string;
  /** Frontmatter keys plugins read (their `agentKeys`: `approve`, `agents`, `memory`). */
  extra: Record<string, unknown>;
}

/** Options of {@link AgentFiles}. */
export interface AgentFilesOptions<Settings> {
  /** The project folder (the folder of oryx.config.ts): its AGENTS.md and CLAUDE.md are read too. */
  projectDir?: string;
  /** Frontmatter keys enabled plugins read (their `agentKeys`); any other unknown key is an error. */
  agentKeys?: () => Iterable<string>;
  /** Makes an agent's settings from its `settings:` mapping (undefined without one); `where` is for error positions. */
  settings(own: Record<string, unknown> | undefined, where: { file: string; text: string }): Settings;
}

/** Project instructions other tools already read, at the project's root: read before the workspace's own files. */
const PROJECT_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;
/** The workspace's (or the agent's own) bootstrap files, in prompt order. */
const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'USER.md'] as const;

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

/** How a build reads: through the cache, each path and what it held kept, so the next load can check them all at once. */
interface Reads { text(file: string): Promise<string | undefined>; entries(dir: string): Promise<{ name: string; dir: boolean }[] | undefined> }

/**
 * Agents from `<workspace>/agents/<name>/AGENT.md`. Files go through a cache that reads again
 * only what changed (mtime or size), and an agent built from unchanged files is the same object
 * (read-only: a caller that wants to change one copies it); an edit applies to the next load
 * without a restart.
 *
 * @example
 * const agents = new AgentFiles('/proj/.oryxos', { settings: (own) => ({ max_iterations: 10, ...own }) });
 * const assistant = await agents.load('assistant'); // ORYX_E_AGENT_NOT_FOUND lists the known ones
 */
export class AgentFiles<Settings> {
  private readonly files = new FileCache();
  /** Each agent as last built, with the texts it was built from. */
  private readonly built = new Map<string, { agent: AgentFile<Settings>; from: Map<string, unknown> }>();

  constructor(readonly workspaceDir: string, private readonly options: AgentFilesOptions<Settings>) {}

  get agentsDir(): string { return path.join(this.workspaceDir, 'agents'); }

  /** Names of the agent folders that have an AGENT.md. */
  async names(): Promise<string[]> {
    const entries = (await this.files.entries(this.agentsDir)) ?? [];
    const found = await Promise.all(entries.map(async (e) => e.dir
      && (await this.files.entries(path.join(this.agentsDir, e.name)))?.some((f) => f.name === 'AGENT.md' && !f.dir)));
    return entries.filter((_, i) => found[i]).map((e) => e.name).sort();
  }

  async list(): Promise<AgentFile<Settings>[]> {
    return Promise.all((await this.names()).map((name) => this.load(name)));
  }

  /** One agent; `ORYX_E_AGENT_NOT_FOUND` listing the known ones, `ORYX_E_AGENT_INVALID` naming the file and field. */
  async load(name: string): Promise<AgentFile<Settings>> {
    const kept = this.built.get(name);
    if (kept && this.unchanged(kept.from)) return kept.agent;
    const from = new Map<string, unknown>();
    const seen = <T>(key: string, value: T): T => { from.set(key, value); return value; };
    const agent = await this.build(name, {
      text: async (file) => seen(file, await this.files.text(file)),
      entries: async (dir) => seen(dir, await this.files.entries(dir)),
    });
    this.built.set(name, { agent, from });
    return agent;
  }

  /**
   * Whether every path an agent was built from (files, absent files, skill folders) still holds
   * what it did: the cache checks each witness once, and a path another agent's load read again
   * since must hold the same value.
   */
  private unchanged(from: Map<string, unknown>): boolean {
    return this.files.fresh(from.keys()) && [...from].every(([key, value]) => this.files.last(key) === value);
  }

  private async build(name: string, read: Reads): Promise<AgentFile<Settings>> {
    if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) {
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `"${name}" is not a valid agent name`, {
        hint: 'Agent names are folder names: letters, digits, _ . and -.',
      });
    }
    const dir = path.join(this.agentsDir, name);
    const file = path.join(dir, 'AGENT.md');
    const text = await read.text(file);
    if (text === undefined) {
      const known = await this.names();
      throw new OryxError('ORYX_E_AGENT_NOT_FOUND', `No agent "${name}": ${path.relative(process.cwd(), file)} does not exist${didYouMean(name, known)}`, {
        hint: known.length ? `Known agents: ${known.join(', ')}.` : 'Run `oryx init` to create the assistant agent.',
      });
    }
    // YAML only, on the core schema: a `---js` block is an error naming the file, never code.
    const { data, content } = await parseFrontmatter(text, file);
    const found = s.check(frontmatterShape, data);
    if (found) throw agentFieldError(file, text, found.path.join('.') || '(frontmatter)', found.problem);
    const pluginKeys = new Set(this.options.agentKeys?.() ?? []);
    const stray = Object.keys(data).find((k) => !KNOWN.has(k) && !pluginKeys.has(k));
    if (stray !== undefined) throw agentKeyError(file, text, stray, [...KNOWN, ...pluginKeys].filter((k) => k !== 'name'));
    return {
      name,
      description: typeof data.description === 'string' ? data.description : '',
      provider: data.provider as string | undefined,
      model: data.model as string | undefined,
      tools: (data.tools as string[] | undefined) ?? [],
      skills: await this.skills(dir, data.skills as string[] | undefined, read),
      settings: this.options.settings(data.settings as Record<string, unknown> | undefined, { file, text }),
      sandbox: data.sandbox,
      instructions: content.trim(),
      bootstrap: await this.bootstrap(dir, read),
      dir,
      file,
      extra: Object.fromEntries(Object.entries(data).filter(([k]) => !KNOWN.has(k))),
    };
  }

  /**
   * Project instructions, most stable first: the project's AGENTS.md and CLAUDE.md (what Codex,
   * Claude Code and other tools read), then AGENTS.md, SOUL.md and USER.md — the agent's own
   * copy of each, else the workspace's. A file found twice (a workspace at the project root) is
   * read once.
   */
  private async bootstrap(dir: string, read: Reads): Promise<AgentFile<Settings>['bootstrap']> {
    const found: AgentFile<Settings>['bootstrap'] = [];
    const project = this.options.projectDir;
    const add = async (name: string, candidates: string[]): Promise<void> => {
      for (const candidate of candidates) {
        if (found.some((f) => f.path === candidate)) return;
        const text = await read.text(candidate);
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
  private async skills(dir: string, allow: string[] | undefined, read: Reads): Promise<SkillFile[]> {
    const own = await this.readSkills(path.join(dir, 'skills'), read);
    const shared = allow ? await this.readSkills(path.join(this.workspaceDir, 'skills'), read) : [];
    const matches = (skill: SkillFile) => !allow || allow.some((p) => matchesToolPattern(skill.name, p));
    const seen = new Set<string>();
    return [...own, ...shared].filter((skill) => matches(skill) && !seen.has(skill.name) && seen.add(skill.name));
  }

  private async readSkills(dir: string, read: Reads): Promise<SkillFile[]> {
    const files = ((await read.entries(dir)) ?? []).filter((e) => !e.dir && e.name.endsWith('.md')).map((e) => e.name).sort();
    const skills: SkillFile[] = [];
    for (const f of files) {
      const file = path.join(dir, f);
      const text = await read.text(file);
      if (text === undefined) continue;
      const { data, content } = await parseFrontmatter(text, file);
      const description = typeof data.description === 'string' ? data.description
        : content.split('\n').find((l) => l.trim() && !l.startsWith('#'))?.trim() ?? '';
      skills.push({ name: typeof data.name === 'string' ? data.name : f.slice(0, -3), description, path: file });
    }
    return skills;
  }
}

/**
 * ORYX_E_AGENT_INVALID for a field of an agent file (or of the config's settings, `text` empty):
 * the file, the field's line when found, and what is wrong.
 *
 * @example
 * throw agentFieldError('AGENT.md', text, 'settings.max_iterations', 'must be an integer above 0');
 */
export function agentFieldError(file: string, text: string, field: string, problem: string): OryxError {
  const line = text ? lineOfKey(text, field.split('.').at(-1)!) : undefined;
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: field "${field}" ${problem}`, {
    hint: 'Fix that field in the AGENT.md frontmatter (or the settings of oryx.config.ts); see the kernel README for the format.',
    data: { file, field, line },
  });
}

/**
 * ORYX_E_AGENT_INVALID for an unknown key: where it is, the closest known one and the known ones.
 *
 * @example
 * throw agentKeyError('AGENT.md', text, 'max_iteration', ['max_iterations'], 'settings');
 */
export function agentKeyError(file: string, text: string, key: string, known: string[], under?: string): OryxError {
  const line = text ? lineOfKey(text, key) : undefined;
  const where = under ? ` in ${under}` : '';
  return new OryxError('ORYX_E_AGENT_INVALID', `${file}${line ? `:${line}` : ''}: unknown key "${key}"${where}${didYouMean(key, known)} (known keys: ${known.join(', ')})`, {
    hint: 'Fix or remove that key; a key a plugin reads needs that plugin enabled in oryx.config.ts.',
    data: { file, field: under ? `${under}.${key}` : key, line },
  });
}
