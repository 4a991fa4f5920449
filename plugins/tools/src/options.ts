import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { toolsError } from './errors.ts';

/** The tools this plugin can register. */
export const TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'list_dir', 'shell', 'http_request', 'current_time'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** Options of {@link tools}. Every limit is enforced by the tool and reported to the model when hit. */
export interface ToolsOptions {
  /** Register only these tools. Default: all of them. */
  include?: ToolName[];
  /** Do not register these tools. Applied after `include`. */
  exclude?: ToolName[];
  /** Most characters of text one result carries (file text, each output stream, response body, listing). Default 20000. */
  maxOutputChars?: number;
  /** Lines read_file returns when the call gives no `limit`. Default 2000. */
  maxReadLines?: number;
  /** Entries list_dir returns at most. Default 1000. */
  maxListEntries?: number;
  /** Time limit of a shell call that gives no `timeoutMs`. Default 30000 (or maxShellTimeoutMs when lower). */
  shellTimeoutMs?: number;
  /** Highest `timeoutMs` a shell call may ask for. Default 300000. */
  maxShellTimeoutMs?: number;
  /** After a timeout, SIGTERM first, SIGKILL this much later. Default 2000. */
  killGraceMs?: number;
  /** Time limit of one http_request, redirects included. Default 30000. */
  httpTimeoutMs?: number;
  /** Redirects http_request follows, each checked by the sandbox. Default 5. */
  maxRedirects?: number;
  /** Response bytes read at most (the length is counted up to here). Default 10485760 (10 MiB). */
  maxResponseBytes?: number;
  /**
   * Tools that wait for a person's approval before every call, whatever the sandbox says:
   * `{ shell: 'always', write_file: 'always' }`. AGENT.md `approve: [...]` adds more per agent.
   */
  approval?: Partial<Record<ToolName, 'always'>>;
}

export type ResolvedToolsOptions = Required<Omit<ToolsOptions, 'include' | 'exclude'>> & { tools: ToolName[] };


const names = s.array(s.literal(...TOOL_NAMES)).optional();
const atLeast = (min: number) => s.integer({ min }).optional();
const shape = s.object({
  include: names,
  exclude: names,
  maxOutputChars: atLeast(100),
  maxReadLines: atLeast(1),
  maxListEntries: atLeast(1),
  shellTimeoutMs: atLeast(1),
  maxShellTimeoutMs: atLeast(1),
  killGraceMs: atLeast(0),
  httpTimeoutMs: atLeast(1),
  maxRedirects: atLeast(0),
  maxResponseBytes: atLeast(1),
  approval: s.record(s.literal('always')).optional(),
});

/** Validates the factory's options at once; the error names the field and how to fix it. */
export function resolveOptions(raw: unknown): ResolvedToolsOptions {
  for (const moved of ['shellEnv', 'shellEnvPass']) {
    if (raw && typeof raw === 'object' && moved in raw) {
      throw toolsError('ORYX_E_TOOLS_OPTIONS', `tools(): option ${moved} was removed: the sandbox decides the environment of every process`, {
        hint: "List the variables programs may get in sandbox({ exec: { env: ['LANG', 'MY_TOKEN'] } }) and drop the option from tools({...}).",
        data: { field: moved },
      });
    }
  }
  const o: ToolsOptions = validateOptions(shape, raw, { plugin: 'tools', code: 'ORYX_E_TOOLS_OPTIONS', example: 'tools({ exclude: ["shell"] })' });
  const maxShellTimeoutMs = o.maxShellTimeoutMs ?? Math.max(300_000, o.shellTimeoutMs ?? 0);
  const shellTimeoutMs = o.shellTimeoutMs ?? Math.min(30_000, maxShellTimeoutMs);
  if (shellTimeoutMs > maxShellTimeoutMs) {
    throw toolsError('ORYX_E_TOOLS_OPTIONS', `tools(): option shellTimeoutMs (${shellTimeoutMs}) is above maxShellTimeoutMs (${maxShellTimeoutMs})`, {
      hint: 'Lower shellTimeoutMs or raise maxShellTimeoutMs in tools({...}).', data: { field: 'shellTimeoutMs' },
    });
  }
  for (const name of Object.keys(o.approval ?? {})) {
    if (!(TOOL_NAMES as readonly string[]).includes(name)) {
      throw toolsError('ORYX_E_TOOLS_OPTIONS', `tools(): option approval.${name} names no tool of this plugin`, {
        hint: `Name one of ${TOOL_NAMES.join(', ')} in tools({ approval: { … } }); for another plugin's tool use approve: [...] in AGENT.md.`,
        data: { field: `approval.${name}` },
      });
    }
  }
  const include = o.include ?? [...TOOL_NAMES];
  return {
    tools: include.filter((n) => !o.exclude?.includes(n)),
    maxOutputChars: o.maxOutputChars ?? 20_000,
    maxReadLines: o.maxReadLines ?? 2000,
    maxListEntries: o.maxListEntries ?? 1000,
    shellTimeoutMs,
    maxShellTimeoutMs,
    killGraceMs: o.killGraceMs ?? 2000,
    httpTimeoutMs: o.httpTimeoutMs ?? 30_000,
    maxRedirects: o.maxRedirects ?? 5,
    maxResponseBytes: o.maxResponseBytes ?? 10 * 1024 * 1024,
    approval: o.approval ?? {},
  };
}
