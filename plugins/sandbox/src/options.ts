import { type } from 'arktype';
import { compilePattern, type ExecEntry } from './exec-rule.ts';
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
};

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
  };
  exec?: { allow?: ExecAllowEntry[] };
  /** `host`, `*.domain`, `*`, `host:port` or `scheme://host[:port]`. */
  http?: { allow?: string[] };
  /** Exact `host:port` pairs. */
  smtp?: { allow?: string[] };
}

const paths = type('string > 0').array();
const execEntry = type('string > 0').or({ command: 'string > 0', 'args?': 'string[]', 'rest?': 'string', '+': 'reject' });

export const optionsShape = type({
  'files?': { 'read?': paths, 'write?': paths, 'deny?': paths, '+': 'reject' },
  'exec?': { 'allow?': execEntry.array(), '+': 'reject' },
  'http?': { 'allow?': type('string > 0').array(), '+': 'reject' },
  'smtp?': { 'allow?': type('string > 0').array(), '+': 'reject' },
  '+': 'reject',
});

/**
 * Options parsed but not yet resolved on disk. A list left out is `undefined`: the global
 * policy reads that as "nothing allowed", an agent's as "not narrowed".
 */
export interface Rules {
  files?: { read?: string[]; write?: string[]; deny?: string[] };
  exec?: ExecEntry[];
  http?: HttpEntry[];
  smtp?: SmtpEntry[];
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
  if (o.files) rules.files = { read: o.files.read, write: o.files.write, deny: o.files.deny };
  if (o.exec?.allow) {
    rules.exec = [];
    for (const [i, entry] of o.exec.allow.entries()) {
      if (typeof entry === 'string') { rules.exec.push({ source: JSON.stringify(entry), command: entry }); continue; }
      const compiled: ExecEntry = { source: JSON.stringify(entry), command: entry.command };
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
