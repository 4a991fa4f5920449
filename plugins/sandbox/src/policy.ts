import { stat } from 'node:fs/promises';
import path from 'node:path';
import { absolutePath, canonicalPath, resolveExecutable, type SandboxAction } from '@oryxos/kernel';
import { checkExec, type ExecEntry } from './exec-rule.ts';
import { checkHttp, type HttpEntry } from './http-rule.ts';
import type { Rules } from './options.ts';
import { isWithin } from './paths.ts';
import { checkSmtp, type SmtpEntry } from './smtp-rule.ts';

/** A files root or deny entry, resolved on disk. */
interface Root {
  /** As written in the options. */
  source: string;
  path: string;
  /** Device and inode of an existing deny entry that is a file, so a hard link to it is caught too. */
  id?: string;
}

// Programs that run whatever their arguments say; allowing them without argument rules
// allows everything.
const RUNS_ANYTHING = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'node', 'deno', 'bun', 'python',
  'python3', 'perl', 'ruby', 'php', 'lua', 'env', 'xargs', 'sudo', 'doas', 'su', 'nohup', 'timeout', 'nice', 'busybox']);

export interface BuildOptions {
  /** Canonical folder relative paths resolve against (the folder of oryx.config.ts). */
  root: string;
  /** `global` reads a list left out as "nothing allowed"; `agent` as "not narrowed". */
  scope: 'global' | 'agent';
  warn?(message: string): void;
}

/**
 * One allow-list, resolved on disk: roots `realpath`'d, commands looked up on PATH. The
 * global policy and each agent's narrowing are both a Policy; an action must pass both.
 */
export class Policy {
  private constructor(
    private readonly options: BuildOptions,
    private readonly read: Root[] | undefined,
    private readonly write: Root[] | undefined,
    private readonly deny: Root[],
    private readonly exec: ExecEntry[] | undefined,
    private readonly http: HttpEntry[] | undefined,
    private readonly smtp: SmtpEntry[] | undefined,
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
        let id: string | undefined;
        try {
          const s = await stat(resolved);
          if (field === 'deny' && s.isFile()) id = `${s.dev}:${s.ino}`;
        } catch {
          // A deny entry that does not exist yet is the normal case (oryx.db-wal exists only
          // while the database is open): it applies once created, so say nothing.
          if (global && field !== 'deny') warn(`files.${field}.${i} (${JSON.stringify(source)}) does not exist yet (${resolved}); it applies once it is created`);
        }
        return { source, path: resolved, id };
      }));
    };
    const read = await roots(rules.files?.read, 'read');
    const write = await roots(rules.files?.write, 'write');
    const deny = (await roots(rules.files?.deny, 'deny')) ?? [];
    const exec = rules.exec ?? (global ? [] : undefined);
    for (const entry of exec ?? []) {
      entry.resolved = await resolveExecutable(entry.command, options.root);
      if (!global) continue;
      if (!entry.resolved) warn(`exec entry ${entry.source} was not found${entry.command.includes('/') ? '' : ' on PATH'}; it matches nothing until it exists`);
      if (!entry.args && !entry.rest && RUNS_ANYTHING.has(path.basename(entry.command))) {
        warn(`exec entry ${entry.source} has no argument rules, and ${path.basename(entry.command)} runs whatever its arguments say: this allows any command`);
      }
      const writable = entry.resolved && write?.find((r) => isWithin(entry.resolved!, r.path));
      if (writable) warn(`exec entry ${entry.source} is inside the write root ${writable.source}: an agent could rewrite what it runs`);
    }
    return new Policy(options, read, write, deny, exec, rules.http ?? (global ? [] : undefined), rules.smtp ?? (global ? [] : undefined));
  }

  /** The reason this policy denies the action, or undefined when it allows it. */
  async check(action: SandboxAction): Promise<string | undefined> {
    switch (action?.kind) {
      case 'file': return this.checkFile(action.op, action.path);
      case 'exec':
        if (!this.exec) return undefined;
        if (!this.exec.length) return 'no command may be run: the exec allow-list is empty';
        return checkExec(this.exec, action.command, action.args, this.options.root);
      case 'http':
        if (!this.http) return undefined;
        if (!this.http.length) return 'no HTTP request may be made: the http allow-list is empty';
        return checkHttp(this.http, action.url, action.method);
      case 'smtp':
        if (!this.smtp) return undefined;
        if (!this.smtp.length) return 'no SMTP server may be contacted: the smtp allow-list is empty';
        return checkSmtp(this.smtp, action.host, action.port);
      default:
        return `unknown sandbox action kind ${JSON.stringify((action as { kind?: unknown })?.kind)}`;
    }
  }

  private async checkFile(op: unknown, p: unknown): Promise<string | undefined> {
    if (op !== 'read' && op !== 'write') return `unknown file operation ${JSON.stringify(op)}`;
    if (typeof p !== 'string' || !p) return 'the file action has no path';
    if (p.includes('\0')) return `path ${JSON.stringify(p)} contains a NUL byte`;
    let real: string;
    try {
      real = await canonicalPath(absolutePath(p, this.options.root));
    } catch (error) {
      return `path ${JSON.stringify(p)} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
    const shown = real === p ? JSON.stringify(p) : `${JSON.stringify(p)} (${real})`;
    const denied = this.deny.find((d) => isWithin(real, d.path));
    if (denied) return `${op} of ${shown} is not allowed: ${denied.source} is on the sandbox deny list`;
    if (this.deny.some((d) => d.id)) {
      const s = await stat(real).catch(() => undefined);
      const same = s && this.deny.find((d) => d.id === `${s.dev}:${s.ino}`);
      if (same) return `${op} of ${shown} is not allowed: it is a hard link to ${same.source}, which is on the sandbox deny list`;
    }
    const roots = op === 'read' ? this.read : this.write;
    if (!roots) return undefined;
    if (!roots.length) return `${op} of ${shown} is not allowed: no files may be ${op === 'read' ? 'read' : 'written'} (files.${op} is empty)`;
    if (roots.some((r) => isWithin(real, r.path))) return undefined;
    return `${op} of ${shown} is not allowed: it is outside the ${op} roots (${roots.map((r) => r.path).join(', ')})`;
  }
}
