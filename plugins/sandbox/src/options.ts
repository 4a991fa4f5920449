import { type } from 'arktype';
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
  };
  exec?: {
    allow?: ExecAllowEntry[];
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
  /** `host`, `*.domain`, `*`, `host:port` or `scheme://host[:port]`. */
  http?: { allow?: string[] };
  /** Exact `host:port` pairs. */
  smtp?: { allow?: string[] };
  /**
   * Run every child process (shell commands, MCP stdio servers) under bubblewrap, confined to
   * this policy (default true). `false` runs them with your full rights: only the decision to
   * start them is checked. Only in oryx.config.ts, not in AGENT.md.
   */
  confine?: boolean;
}

const paths = type('string > 0').array();
const limits = type({
  'cpuSeconds?': 'number.integer >= 1',
  'memoryMb?': 'number.integer >= 16',
  'processes?': 'number.integer >= 1',
  '+': 'reject',
});
const execEntry = type('string > 0').or({
  command: 'string > 0', 'args?': 'string[]', 'rest?': 'string', 'env?': paths, 'limits?': limits, '+': 'reject',
});

export const optionsShape = type({
  'files?': { 'read?': paths, 'write?': paths, 'deny?': paths, 'allowControlWrites?': paths, 'allowHardLinks?': 'boolean', '+': 'reject' },
  'exec?': { 'allow?': execEntry.array(), 'env?': paths, 'limits?': limits, '+': 'reject' },
  'http?': { 'allow?': type('string > 0').array(), '+': 'reject' },
  'smtp?': { 'allow?': type('string > 0').array(), '+': 'reject' },
  'confine?': 'boolean',
  '+': 'reject',
});

/**
 * Options parsed but not yet resolved on disk. A list left out is `undefined`: the global
 * policy reads that as "nothing allowed", an agent's as "not narrowed".
 */
export interface Rules {
  files?: { read?: string[]; write?: string[]; deny?: string[]; allowControlWrites?: string[]; allowHardLinks?: boolean };
  exec?: ExecEntry[];
  /** `exec.env` patterns, checked. */
  env?: string[];
  limits?: Limits;
  http?: HttpEntry[];
  smtp?: SmtpEntry[];
  confine?: boolean;
}

export type ParseResult = { ok: true; rules: Rules } | { ok: false; field: string; message: string };

/** Validates the shape, then every entry (patterns compile, hosts parse). Never throws. */
export function parseRules(raw: unknown): ParseResult {
  const checked = optionsShape(raw ?? {});
  if (checked instanceof type.errors) {
    const first = checked[0];
    const field = first?.path?.length ? first.path.join('.') : '(options)';
    return { ok: false, field, message: first?.message.replace(/^.*? must/, 'must') ?? checked.summary };
  }
  const o = checked as SandboxOptions;
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
  if (o.exec?.allow) {
    rules.exec = [];
    for (const [i, entry] of o.exec.allow.entries()) {
      if (typeof entry === 'string') { rules.exec.push({ source: JSON.stringify(entry), command: entry }); continue; }
      const compiled: ExecEntry = { source: JSON.stringify(entry), command: entry.command };
      if (entry.env) {
        const bad = envList(entry.env, `exec.allow.${i}.env`);
        if (bad) return bad;
        compiled.env = entry.env;
      }
      if (entry.limits) compiled.limits = entry.limits;
      if (entry.args) {
        compiled.args = [];
        for (const [j, p] of entry.args.entries()) {
          const re = compilePattern(p);
          if (typeof re === 'string') return { ok: false, field: `exec.allow.${i}.args.${j}`, message: `(${JSON.stringify(p)}) ${re}` };
          compiled.args.push(re);
        }
      }
      if (entry.rest !== undefined) {
        const re = compilePattern(entry.rest);
        if (typeof re === 'string') return { ok: false, field: `exec.allow.${i}.rest`, message: `(${JSON.stringify(entry.rest)}) ${re}` };
        compiled.rest = re;
      }
      rules.exec.push(compiled);
    }
  }
  if (o.http?.allow) {
    rules.http = [];
    for (const [i, source] of o.http.allow.entries()) {
      const entry = parseHttpEntry(source);
      if (typeof entry === 'string') return { ok: false, field: `http.allow.${i}`, message: `(${JSON.stringify(source)}) ${entry}` };
      rules.http.push(entry);
    }
  }
  if (o.smtp?.allow) {
    rules.smtp = [];
    for (const [i, source] of o.smtp.allow.entries()) {
      const entry = parseSmtpEntry(source);
      if (typeof entry === 'string') return { ok: false, field: `smtp.allow.${i}`, message: `(${JSON.stringify(source)}) ${entry}` };
      rules.smtp.push(entry);
    }
  }
  return { ok: true, rules };
}
