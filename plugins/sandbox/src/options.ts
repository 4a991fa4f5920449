import { shape as s } from '@oryxos/schema-kit';
import { parseEnvName } from './env-rule.ts';
import { compilePattern, type ExecEntry, type Limits } from './exec-rule.ts';
import { parseHttpEntry, type HttpEntry } from './http-rule.ts';
import { parseSmtpEntry, type SmtpEntry } from './smtp-rule.ts';

/** An `exec.allow` entry: a command (name on PATH or path), optionally with argument rules. */
export type ExecAllowEntry = string | {
  /** A name looked up on PATH (`git`) or a path (`/usr/local/bin/tool`, `./scripts/build.sh`). */
  command: string;
  /**
   * Regular expressions, one per argument position: argument i must match `args[i]` in full
   * (the pattern is anchored for you). Fewer arguments than rules are fine.
   */
  args?: string[];
  /** Rule for every argument after the positional ones. Without it, extra arguments are denied. */
  rest?: string;
  /** Environment variables this program may get, on top of `exec.env` (same form). */
  env?: string[];
  /** Resource limits of this program when confined; default `exec.limits`. */
  limits?: ExecLimits;
};

/** Resource limits of a confined process (each left out is not limited). */
export interface ExecLimits {
  /** CPU time in seconds (RLIMIT_CPU). */
  cpuSeconds?: number;
  /** Data memory in MiB (RLIMIT_DATA: heap and private mappings). */
  memoryMb?: number;
  /** Processes of the user at once (RLIMIT_NPROC; Linux does not apply it to root). */
  processes?: number;
}

/**
 * Options of {@link sandbox}, and the shape of the `sandbox:` frontmatter of AGENT.md.
 * Everything not listed is denied.
 */
export interface SandboxOptions {
  /** Paths relative to the folder of oryx.config.ts. */
  files?: {
    /** Folders (or files) that may be read, with everything below them. */
    read?: string[];
    /** Folders (or files) that may be written, with everything below them. Does not imply read. */
    write?: string[];
    /** Denied even inside a read or write root (the database, secrets). */
    deny?: string[];
    /**
     * Control files (the config, `.oryxos/**`, `.git`, `node_modules`, `package.json`,
     * `.npmrc`, …) are never written, whatever `write` says, unless listed here: paths or globs
     * (`*`, `**`) relative to the folder of oryx.config.ts, e.g. `.oryxos/agents/notes/**`.
     */
    allowControlWrites?: string[];
    /** Read and write files that have more than one hard link. Default false. */
    allowHardLinks?: boolean;
    /**
     * Folders (or files) where a read or write needs a person's approval first, even inside a
     * read or write root (and allowed after approval even outside them). Deny still wins.
     */
    ask?: { read?: string[]; write?: string[] };
  };
  exec?: {
    allow?: ExecAllowEntry[];
    /**
     * Programs that run only after a person approves each call, in the `allow` entry form. Here
     * `args` match a prefix: `{ command: 'git', args: ['push'] }` asks for every `git push …`
     * (without `rest`, further arguments are not checked). Checked before `allow`.
     */
    ask?: ExecAllowEntry[];
    /**
     * Environment variables a program may get: passed from the environment of OryxOS when set,
     * and allowed when a launcher sets them (an MCP server's `env:`). `NAME` or `PREFIX*`.
     * Variables that change what a program does (`LD_PRELOAD`, `NODE_OPTIONS`, `GIT_*`, …) are
     * allowed only when listed by their exact name.
     */
    env?: string[];
    /** Default resource limits of confined programs. */
    limits?: ExecLimits;
  };
  /** `host`, `*.domain`, `*`, `host:port` or `scheme://host[:port]`; `ask` entries need a person's approval per request. */
  http?: { allow?: string[]; ask?: string[] };
  /** Exact `host:port` pairs; `ask` entries need a person's approval per connection. */
  smtp?: { allow?: string[]; ask?: string[] };
  /**
   * Run every child process (shell commands, MCP stdio servers) under bubblewrap, confined to
   * this policy (default true). `false` runs them with your full rights: only the decision to
   * start them is checked. Only in oryx.config.ts, not in AGENT.md.
   */
  confine?: boolean;
}

const name = s.string({ min: 1 });
const paths = s.array(name).optional();
const limits = s.object({
  cpuSeconds: s.integer({ min: 1 }).optional(),
  memoryMb: s.integer({ min: 16 }).optional(),
  processes: s.integer({ min: 1 }).optional(),
});
const execEntry = s.union(name, s.object({
  command: name, args: s.array(s.string()).optional(), rest: s.string().optional(), env: paths, limits: limits.optional(),
}));
const hosts = s.object({ allow: paths, ask: paths }).optional();

export const optionsShape = s.object({
  files: s.object({
    read: paths, write: paths, deny: paths, allowControlWrites: paths, allowHardLinks: s.boolean().optional(),
    ask: s.object({ read: paths, write: paths }).optional(),
  }).optional(),
  exec: s.object({ allow: s.array(execEntry).optional(), ask: s.array(execEntry).optional(), env: paths, limits: limits.optional() }).optional(),
  http: hosts,
  smtp: hosts,
  confine: s.boolean().optional(),
});

/**
 * Options parsed but not yet resolved on disk. A list left out is `undefined`: the global
 * policy reads that as "nothing allowed", an agent's as "not narrowed".
 */
export interface Rules {
  files?: {
    read?: string[]; write?: string[]; deny?: string[]; allowControlWrites?: string[]; allowHardLinks?: boolean;
    ask?: { read?: string[]; write?: string[] };
  };
  exec?: ExecEntry[];
  /** `exec.ask` entries (argument rules match a prefix). */
  execAsk?: ExecEntry[];
  /** `exec.env` patterns, checked. */
  env?: string[];
  limits?: Limits;
  http?: HttpEntry[];
  httpAsk?: HttpEntry[];
  smtp?: SmtpEntry[];
  smtpAsk?: SmtpEntry[];
  confine?: boolean;
}

export type ParseResult = { ok: true; rules: Rules } | { ok: false; field: string; message: string };

/** Validates the shape, then every entry (patterns compile, hosts parse). Never throws. */
export function parseRules(raw: unknown): ParseResult {
  const found = s.check(optionsShape, raw ?? {});
  if (found) return { ok: false, field: found.path.length ? found.path.join('.') : '(options)', message: found.problem };
  const o = (raw ?? {}) as SandboxOptions;
  const rules: Rules = {};
  if (o.files) rules.files = { ...o.files };
  if (o.confine !== undefined) rules.confine = o.confine;
  const envList = (list: string[] | undefined, field: string): ParseResult | undefined => {
    for (const [i, name] of (list ?? []).entries()) {
      const problem = parseEnvName(name);
      if (problem) return { ok: false, field: `${field}.${i}`, message: `(${JSON.stringify(name)}) ${problem}` };
    }
    return undefined;
  };
  if (o.exec?.env) {
    const bad = envList(o.exec.env, 'exec.env');
    if (bad) return bad;
    rules.env = o.exec.env;
  }
  if (o.exec?.limits) rules.limits = o.exec.limits;
  const execList = (list: ExecAllowEntry[], field: string, prefix: boolean): ExecEntry[] | ParseResult => {
    const out: ExecEntry[] = [];
    for (const [i, entry] of list.entries()) {
      if (typeof entry === 'string') { out.push({ source: JSON.stringify(entry), command: entry, ...(prefix ? { prefix } : {}) }); continue; }
      const compiled: ExecEntry = { source: JSON.stringify(entry), command: entry.command, ...(prefix ? { prefix } : {}) };
      if (entry.env) {
        const bad = envList(entry.env, `${field}.${i}.env`);
        if (bad) return bad;
        compiled.env = entry.env;
      }
      if (entry.limits) compiled.limits = entry.limits;
      if (entry.args) {
        compiled.args = [];
        for (const [j, p] of entry.args.entries()) {
          const re = compilePattern(p);
          if (typeof re === 'string') return { ok: false, field: `${field}.${i}.args.${j}`, message: `(${JSON.stringify(p)}) ${re}` };
          compiled.args.push(re);
        }
      }
      if (entry.rest !== undefined) {
        const re = compilePattern(entry.rest);
        if (typeof re === 'string') return { ok: false, field: `${field}.${i}.rest`, message: `(${JSON.stringify(entry.rest)}) ${re}` };
        compiled.rest = re;
      }
      out.push(compiled);
    }
    return out;
  };
  const hostList = <E>(list: string[], field: string, parse: (source: string) => E | string): E[] | ParseResult => {
    const out: E[] = [];
    for (const [i, source] of list.entries()) {
      const entry = parse(source);
      if (typeof entry === 'string') return { ok: false, field: `${field}.${i}`, message: `(${JSON.stringify(source)}) ${entry}` };
      out.push(entry);
    }
    return out;
  };
  const lists = [
    ['exec', o.exec?.allow && execList(o.exec.allow, 'exec.allow', false)],
    ['execAsk', o.exec?.ask && execList(o.exec.ask, 'exec.ask', true)],
    ['http', o.http?.allow && hostList(o.http.allow, 'http.allow', parseHttpEntry)],
    ['httpAsk', o.http?.ask && hostList(o.http.ask, 'http.ask', parseHttpEntry)],
    ['smtp', o.smtp?.allow && hostList(o.smtp.allow, 'smtp.allow', parseSmtpEntry)],
    ['smtpAsk', o.smtp?.ask && hostList(o.smtp.ask, 'smtp.ask', parseSmtpEntry)],
  ] as const;
  for (const [key, list] of lists) {
    if (!list) continue;
    if (!Array.isArray(list)) return list;
    (rules as Record<string, unknown>)[key] = list;
  }
  return { ok: true, rules };
}
