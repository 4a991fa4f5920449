import { AgentFiles, agentFieldError, agentKeyError } from '@oryxos/agent-files';
import { shape as s } from '@oryxos/schema-kit';
import type { PluginSetting } from './plugin.ts';
import type { AgentSettings } from './types.ts';

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
 * The workspace's agents ({@link AgentFiles}: AGENT.md, skills, project files, hot reload), each
 * with its settings: the kernel's defaults, the config's, the plugins' declared ones, then the
 * agent's own, each key checked.
 */
export class AgentLoader extends AgentFiles<AgentSettings> {
  constructor(workspaceDir: string, options: AgentLoaderOptions = {}) {
    super(workspaceDir, { ...options, settings: (own, where) => mergeSettings(where.file, where.text, own, options) });
  }
}

function mergeSettings(file: string, text: string, own: Record<string, unknown> | undefined, options: AgentLoaderOptions): AgentSettings {
  const declared = new Map(options.pluginSettings?.() ?? []);
  const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const [key, setting] of declared) merged[key] = setting.default;
  for (const [where, layer] of [['oryx.config.ts', options.settings], [file, own]] as const) {
    if (!layer) continue;
    const at = where === file ? text : '';
    const found = s.check(settingsShape, layer);
    if (found) throw agentFieldError(where, at, `settings.${found.path.join('.')}`, found.problem);
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (KERNEL_SETTINGS.has(key)) {
        merged[key] = key === 'loop_detection' && value !== false ? { ...(merged.loop_detection || DEFAULT_SETTINGS.loop_detection) as object, ...value as object } : value;
        continue;
      }
      const setting = declared.get(key);
      if (!setting) throw agentKeyError(where, at, key, [...KERNEL_SETTINGS, ...declared.keys()].sort(), 'settings');
      const problem = setting.check(value);
      if (problem) throw agentFieldError(where, at, `settings.${key}`, problem);
      merged[key] = value;
    }
  }
  return merged as AgentSettings;
}
