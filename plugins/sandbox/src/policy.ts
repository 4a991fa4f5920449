import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExecAction, SandboxAction } from '@oryxos/contracts';
import { absolutePath, canonicalPath, resolveExecutable } from '@oryxos/plugin-kit';
import { ControlFiles, type Guard } from './control-files.ts';
import { identityHit, identityOf, mergeBook, type Identity, type IdentityBook } from './deny-identity.ts';
import { envProblem } from './env-rule.ts';
import { matchAsk, matchExec, type ExecEntry, type Limits } from './exec-rule.ts';
import { checkHttp, type HttpEntry } from './http-rule.ts';
import type { Rules } from './options.ts';
import { isWithin } from './paths.ts';
import { checkSmtp, type SmtpEntry } from './smtp-rule.ts';

/** A files root or deny entry, resolved on disk. */
export interface Root {
  /** As written in the options. */
  source: string;
  path: string;
  /**
   * What a deny entry is (and was at earlier starts): a denied file or folder renamed, moved or
   * hard-linked elsewhere is still denied at its new name.
   */
  ids?: Identity[];
  /** Why it is denied, for an entry OryxOS adds itself (the operator's files). */
  why?: string;
}

/** A deny rule by pattern on the real path (the database files of the workspace, users' memories beside agents). */
export interface DenyPattern { source: string; re: RegExp; why: string }

/** What OryxOS denies to every agent, whatever the options say: the operator's files. */
export interface OperatorDeny { paths: { source: string; path: string; why: string }[]; patterns: DenyPattern[] }

// Programs that run whatever their arguments say; allowing them without argument rules
// allows everything.
const RUNS_ANYTHING = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'node', 'deno', 'bun', 'python',
  'python3', 'perl', 'ruby', 'php', 'lua', 'env', 'xargs', 'sudo', 'doas', 'su', 'nohup', 'timeout', 'nice', 'busybox']);

/**
 * What an `exec.ask` list cannot promise: an argument rule on a program other than git matches
 * positions, and such a program may take options before the word listed; and no ask on git
 * holds while a program that runs others (a shell, an interpreter) is allowed.
 */
function askWarnings(asks: ExecEntry[], allowed: ExecEntry[]): string[] {
  const out: string[] = [];
  const name = (e: ExecEntry) => path.basename(e.resolved ?? e.command);
  const runners = [...new Set(allowed.map(name).filter((n) => RUNS_ANYTHING.has(n)))];
  for (const e of asks) {
    if (!e.args?.length) continue;
    if (name(e) === 'git') {
      if (runners.length) out.push(`exec.ask entry ${e.source} is advisory while ${runners.join(', ')} may run (exec.allow): they can run git without asking`);
    } else {
      out.push(`exec.ask entry ${e.source} matches the arguments of ${name(e)} by position, and a program may take options before the word you list `
        + `(${name(e)} --option … ${e.args[0]!.source.replace(/^\^\(\?:|\)\$$/g, '')}), so this ask is advisory: add entries for those forms, or ask for every call of ${name(e)}`);
    }
  }
  return out;
}

export interface BuildOptions {
  /** Canonical folder relative paths resolve against (the folder of oryx.config.ts). */
  root: string;
  /** `global` reads a list left out as "nothing allowed"; `agent` as "not narrowed". */
  scope: 'global' | 'agent';
  /** The control files (global scope); an agent policy shares the global ones. */
  guards?: Guard[];
  warn?(message: string): void;
  /** The operator's files, denied on top of `files.deny` (global scope). */
  operator?: OperatorDeny;
  /** Identities of the deny entries recorded at earlier starts, by resolved path (global scope). */
  book?: IdentityBook;
}

/** What an allowed exec action resolves to: the program, its folder, what its environment may hold. */
export interface ExecPlan {
  program: string;
  cwd: string;
  /** `exec.env` patterns that apply (undefined: this policy does not narrow the environment). */
  env?: string[];
  limits?: Limits;
  /** Set when the launch needs a person's approval first: why. */
  ask?: string;
}

/**
 * A policy's answer to one action: allowed, allowed once a person approves it (`ask`), or
 * denied; with the reason for the last two.
 */
export type Verdict = { outcome: 'allow' } | { outcome: 'ask' | 'deny'; reason: string };

const ALLOW: Verdict = Object.freeze({ outcome: 'allow' });
const deny = (reason: string): Verdict => ({ outcome: 'deny', reason });
const ask = (reason: string): Verdict => ({ outcome: 'ask', reason });
const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** The stricter of two verdicts: deny beats ask beats allow (the first wins a tie). */
export function stricter(a: Verdict, b: Verdict): Verdict {
  return RANK[b.outcome] > RANK[a.outcome] ? b : a;
}

/**
 * The addresses an http action says it will connect to (the caller resolved the host once, and
 * the sandbox checks those rather than looking it up again), or why they are malformed.
 */
function addressesOf(action: SandboxAction & { kind: 'http' }): readonly string[] | undefined | string {
  if (!('addresses' in action) || action.addresses === undefined) return undefined;
  const list = action.addresses;
  if (!Array.isArray(list) || !list.length || list.some((a) => typeof a !== 'string')) {
    return 'the http action needs addresses as a non-empty array of IP address strings';
  }
  return list as string[];
}

/** The `ask` lists of a policy, resolved like the allow-lists; undefined: nothing asks. */
export interface Asks {
  read?: Root[];
  write?: Root[];
  exec?: ExecEntry[];
  http?: HttpEntry[];
  smtp?: SmtpEntry[];
}

/**
 * One allow-list, resolved on disk: roots `realpath`'d, commands looked up on PATH. The
 * global policy and each agent's narrowing are both a Policy; an action must pass both.
 */
export class Policy {
  private constructor(
    private readonly options: BuildOptions,
    readonly read: Root[] | undefined,
    readonly write: Root[] | undefined,
    readonly deny: Root[],
    readonly exec: ExecEntry[] | undefined,
    private readonly rules: Rules,
    readonly http: HttpEntry[] | undefined,
    private readonly smtp: SmtpEntry[] | undefined,
    readonly controls: ControlFiles | undefined,
    readonly asks: Asks,
    readonly denyPatterns: DenyPattern[],
    /** The identity book after this start: what to record for the next one (global scope). */
    readonly book: { book: IdentityBook; changed: boolean },
  ) {}

  /** Resolves the rules on disk. Throws when a root cannot be resolved (permission denied, symlink loop). */
  static async build(rules: Rules, options: BuildOptions): Promise<Policy> {
    const global = options.scope === 'global';
    const warn = options.warn ?? (() => {});
    const roots = async (list: string[] | undefined, field: string): Promise<Root[] | undefined> => {
      if (!list) return global ? [] : undefined;
      return Promise.all(list.map(async (source, i) => {
        let resolved: string;
        try {
          resolved = await canonicalPath(absolutePath(source, options.root));
        } catch (error) {
          throw Object.assign(new Error(`(${JSON.stringify(source)}) cannot be resolved: ${(error as Error).message}`), { field: `files.${field}.${i}`, cause: error });
        }
        let ids: Identity[] | undefined;
        try {
          const s = await stat(resolved);
          if (field === 'deny') ids = [identityOf(s)];
        } catch {
          // A deny entry that does not exist yet is the normal case (oryx.db-wal exists only
          // while the database is open): it applies once created, so say nothing.
          if (global && field !== 'deny') warn(`files.${field}.${i} (${JSON.stringify(source)}) does not exist yet (${resolved}); it applies once it is created`);
        }
        return { source, path: resolved, ids };
      }));
    };
    const read = await roots(rules.files?.read, 'read');
    const write = await roots(rules.files?.write, 'write');
    const operator = options.operator?.paths ?? [];
    const deny = [
      ...(await roots(rules.files?.deny, 'deny')) ?? [],
      ...(await roots(operator.map((o) => o.path), 'deny') ?? []).map((r, i) => ({ ...r, source: operator[i]!.source, why: operator[i]!.why })),
    ];
    // What each deny entry is now, and was at earlier starts: it stays denied under another name.
    const book = mergeBook(options.book ?? {}, Object.fromEntries(deny.map((d) => [d.path, d.ids?.[0]])));
    if (global) for (const d of deny) d.ids = book.book[d.path];
    const exec = rules.exec ?? (global ? [] : undefined);
    for (const entry of [...exec ?? [], ...rules.execAsk ?? []]) {
      entry.resolved = await resolveExecutable(entry.command, options.root);
      if (!global) continue;
      if (!entry.resolved) warn(`exec entry ${entry.source} was not found${entry.command.includes('/') ? '' : ' on PATH'}; it matches nothing until it exists`);
      if (!entry.prefix && !entry.args && !entry.rest && RUNS_ANYTHING.has(path.basename(entry.command))) {
        warn(`exec entry ${entry.source} has no argument rules, and ${path.basename(entry.command)} runs whatever its arguments say: this allows any command`);
      }
      const writable = entry.resolved && write?.find((r) => isWithin(entry.resolved!, r.path));
      if (writable) warn(`exec entry ${entry.source} is inside the write root ${writable.source}: an agent could rewrite what it runs`);
    }
    if (global) for (const w of askWarnings(rules.execAsk ?? [], exec ?? [])) warn(w);
    let controls: ControlFiles | undefined;
    if (global || rules.files?.allowControlWrites) {
      const guards = await Promise.all((options.guards ?? []).map(async (g) => ({ ...g, path: await canonicalPath(g.path).catch(() => g.path) })));
      controls = new ControlFiles(guards, rules.files?.allowControlWrites ?? [], options.root);
    }
    const asks: Asks = {
      read: rules.files?.ask?.read && await roots(rules.files.ask.read, 'ask.read'),
      write: rules.files?.ask?.write && await roots(rules.files.ask.write, 'ask.write'),
      exec: rules.execAsk, http: rules.httpAsk, smtp: rules.smtpAsk,
    };
    return new Policy(options, read, write, deny, exec, rules, rules.http ?? (global ? [] : undefined), rules.smtp ?? (global ? [] : undefined), controls, asks,
      options.operator?.patterns ?? [], book);
  }

  /**
   * Adds a deny entry OryxOS owns (the database files, wherever the database plugin keeps
   * them): denied for reading and writing, by path and by identity.
   */
  async addDeny(file: string, why: string): Promise<void> {
    // Denied by the path as given at once; by the real path and identity once they are known.
    const entry: Root = { source: this.shownPath(path.resolve(file)), path: path.resolve(file), why };
    this.deny.push(entry);
    const resolved = await canonicalPath(entry.path).catch(() => entry.path);
    const s = await stat(resolved).catch(() => undefined);
    if (resolved !== entry.path) this.deny.push({ ...entry, path: resolved });
    if (s) entry.ids = [identityOf(s)];
  }

  /** The deny entry or pattern a real path falls under (by path), or undefined. */
  denied(real: string): { source: string; why?: string } | undefined {
    return this.deny.find((d) => isWithin(real, d.path)) ?? this.denyPatterns.find((d) => d.re.test(real));
  }

  private shownPath(p: string): string {
    const rel = path.relative(this.options.root, p);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
  }

  /** The canonical folder relative paths resolve against. */
  get root(): string { return this.options.root; }

  /** `files.allowHardLinks` as set (undefined in an agent policy that does not narrow it). */
  get allowHardLinks(): boolean | undefined { return this.rules.files?.allowHardLinks ?? (this.options.scope === 'global' ? false : undefined); }

  /** `confine` as set in the options (global only). */
  get confine(): boolean { return this.rules.confine ?? true; }

  /**
   * This policy's verdict on the action. An `ask` entry is checked before the allow-list, so
   * it narrows an allowed action to "ask first" and opens an unlisted one to "ask"; what is
   * denied for another reason (the deny list, a control file, a bad argument) stays denied.
   */
  async check(action: SandboxAction): Promise<Verdict> {
    switch (action?.kind) {
      case 'file': return this.checkFile(action.op, action.path);
      case 'exec': {
        const plan = await this.planExec(action);
        return typeof plan === 'string' ? deny(plan) : plan.ask ? ask(plan.ask) : ALLOW;
      }
      case 'http': {
        const addresses = addressesOf(action);
        if (typeof addresses === 'string') return deny(addresses);
        if (this.asks.http?.length && !await checkHttp(this.asks.http, action.url, action.method, addresses)) {
          return ask(`${action.method} ${action.url} needs approval: it matches http.ask`);
        }
        if (!this.http) return ALLOW;
        if (!this.http.length) return deny('no HTTP request may be made: the http allow-list is empty');
        const reason = await checkHttp(this.http, action.url, action.method, addresses);
        return reason ? deny(reason) : ALLOW;
      }
      case 'smtp': {
        if (this.asks.smtp?.length && !checkSmtp(this.asks.smtp, action.host, action.port)) {
          return ask(`SMTP to ${action.host}:${action.port} needs approval: it matches smtp.ask`);
        }
        if (!this.smtp) return ALLOW;
        if (!this.smtp.length) return deny('no SMTP server may be contacted: the smtp allow-list is empty');
        const reason = checkSmtp(this.smtp, action.host, action.port);
        return reason ? deny(reason) : ALLOW;
      }
      default:
        return deny(`unknown sandbox action kind ${JSON.stringify((action as { kind?: unknown })?.kind)}`);
    }
  }

  /**
   * Checks an exec action as a whole — program and arguments, then the environment the
   * launcher sets, then the working folder — and returns the reason for a denial or what the
   * launch resolves to.
   */
  async planExec(action: ExecAction): Promise<ExecPlan | string> {
    const cwdGiven = action.cwd !== undefined;
    if (cwdGiven && (typeof action.cwd !== 'string' || !action.cwd)) return 'the exec action has an empty cwd';
    let cwd: string;
    try {
      cwd = await canonicalPath(absolutePath(action.cwd ?? '.', this.options.root));
    } catch (error) {
      return `the working folder ${JSON.stringify(action.cwd)} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
    let entry: ExecEntry | undefined;
    let program = '';
    let asking: string | undefined;
    const asked = this.asks.exec?.length ? await matchAsk(this.asks.exec, action.command, action.args, cwd) : undefined;
    if (asked) {
      ({ entry, program } = asked);
      asking = `${JSON.stringify([action.command, ...action.args])} needs approval: it matches exec.ask entry ${entry.source}${asked.why ? ` (${asked.why})` : ''}`;
    } else if (this.exec) {
      if (!this.exec.length) return 'no command may be run: the exec allow-list is empty';
      const match = await matchExec(this.exec, action.command, action.args, cwd);
      if ('reason' in match) return match.reason;
      ({ entry, program } = match);
    }
    // An agent that does not set exec.env does not narrow the environment.
    const base = this.options.scope === 'global' ? (this.rules.env ?? []) : this.rules.env;
    const env = base && [...base, ...(entry?.env ?? [])];
    const given = action.env ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) return 'the exec action needs env as an object of names to strings';
    for (const [name, value] of env ? Object.entries(given) : []) {
      const problem = envProblem(env!, name, value, program || String(action.command));
      if (problem) return problem;
    }
    const where = await this.checkFile('read', cwd);
    if (where.outcome === 'deny') {
      return cwdGiven
        ? `the working folder may not be read: ${where.reason}`
        : `no cwd was given, so the program would run in the project folder, which may not be read (${where.reason}); pass a cwd inside a folder that may be read`;
    }
    if (where.outcome === 'ask') asking ??= `running a program in ${JSON.stringify(action.cwd ?? '.')} needs approval: ${where.reason}`;
    return { program, cwd, env, limits: entry?.limits ?? this.rules.limits, ...(asking ? { ask: asking } : {}) };
  }

  private async checkFile(op: unknown, p: unknown): Promise<Verdict> {
    if (op !== 'read' && op !== 'write') return deny(`unknown file operation ${JSON.stringify(op)}`);
    if (typeof p !== 'string' || !p) return deny('the file action has no path');
    if (p.includes('\0')) return deny(`path ${JSON.stringify(p)} contains a NUL byte`);
    let real: string;
    try {
      real = await canonicalPath(absolutePath(p, this.options.root));
    } catch (error) {
      return deny(`path ${JSON.stringify(p)} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const shown = real === p ? JSON.stringify(p) : `${JSON.stringify(p)} (${real})`;
    const listed = (d: { source: string; why?: string }) => `${d.source} is on the sandbox deny list${d.why ? ` (${d.why})` : ''}`;
    const denied = this.denied(real);
    if (denied) return deny(`${op} of ${shown} is not allowed: ${listed(denied)}`);
    const s = await stat(real).catch(() => undefined);
    const same = await identityHit(real, this.deny);
    if (same) {
      return deny(same.at === real && s?.isFile()
        ? `${op} of ${shown} is not allowed: it is a hard link to ${same.entry.source} (or that file moved here), and ${listed(same.entry)}`
        : `${op} of ${shown} is not allowed: ${same.at === real ? 'it' : JSON.stringify(this.shownPath(same.at))} is ${same.entry.source} under another name (renamed or moved), and ${listed(same.entry)}`);
    }
    if (op === 'write' && this.controls) {
      const hit = this.controls.hit(real);
      if (hit && !this.controls.optedIn(real)) {
        const scope = this.options.scope === 'agent' ? "this agent's sandbox: frontmatter" : 'oryx.config.ts';
        return deny(`write of ${shown} is not allowed: it is a protected control file (${hit.why}). `
          + `Agents never write control files unless ${scope} opts in by name: sandbox({ files: { allowControlWrites: ['${this.controls.suggestion(real, hit)}'] } })`);
      }
    }
    // An ask root holds inside and outside the allow roots alike: there, approval decides.
    const asking = this.asks[op]?.find((r) => isWithin(real, r.path));
    const roots = op === 'read' ? this.read : this.write;
    if (!asking && roots && !roots.length) return deny(`${op} of ${shown} is not allowed: no files may be ${op === 'read' ? 'read' : 'written'} (files.${op} is empty)`);
    if (!asking && roots && !roots.some((r) => isWithin(real, r.path))) {
      return deny(`${op} of ${shown} is not allowed: it is outside the ${op} roots (${roots.map((r) => r.path).join(', ')})`);
    }
    // A path rule says nothing about the other names of a file: another link may sit outside
    // the roots or inside a denied folder.
    if (s?.isFile() && s.nlink > 1 && this.allowHardLinks === false) {
      return deny(`${op} of ${shown} is not allowed: the file has ${s.nlink} hard links, and a hard link can reach a file outside the roots or inside a denied folder; `
        + 'set files.allowHardLinks: true to allow such files');
    }
    return asking ? ask(`${op} of ${shown} needs approval: it is inside ${JSON.stringify(asking.source)} on files.ask.${op}`) : ALLOW;
  }
}
