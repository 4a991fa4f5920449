/**
 * The checks of `oryx doctor`, each returning one or more lines: ok, fail (with the fix), warn
 * (worth reading, not broken) or skip (could not be checked, and why). They read what the
 * booted kernel offers every host (providers, agents, tool sources, plugins' resolved options),
 * never a plugin's internals.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Database, DatabaseReport } from '@oryxos/contracts';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { AgentDefinition, Kernel, ResolvedConfig } from '@oryxos/kernel';
import satisfies from 'semver/functions/satisfies.js';
import { WORKSPACE_GITIGNORE } from './scaffold.ts';

/** One line of `oryx doctor`. */
export interface DoctorCheck {
  /** What was checked: `node`, `config`, `plugins`, `database`, `provider <name>`, `tools <source>`, `web port`, `sandbox`. */
  check: string;
  status: 'ok' | 'fail' | 'warn' | 'skip';
  detail: string;
  /** The error code of a failure, when it has one. */
  code?: string;
  /** How to fix a failure. */
  fix?: string;
}

/** A failed check from an error: its message, its code and its hint as the fix (else `fix`). */
export const failedCheck = (check: string, error: unknown, fix?: string): DoctorCheck => ({
  check, status: 'fail', detail: errorMessage(error),
  ...(isOryxError(error) ? { code: error.code } : {}),
  ...((isOryxError(error) && error.hint) || fix ? { fix: (isOryxError(error) && error.hint) || fix } : {}),
});

/** The running Node against the `engines.node` range of the CLI package. */
export function checkNode(range: string | undefined, version = process.versions.node): DoctorCheck {
  const needed = range ?? '>=20.19';
  return satisfies(version, needed)
    ? { check: 'node', status: 'ok', detail: `${version} (needs ${needed})` }
    : { check: 'node', status: 'fail', detail: `${version} does not satisfy ${needed}`, fix: `Install Node ${needed} (nvm install 22, or your system's package).` };
}

/**
 * The database of the store plugin (sqlite, postgres), as its `database` service inspects it:
 * it opens, its schema against the code (nothing applied: the doctor's kernel is read-only, so
 * migrations wait for a first query that never comes), the engine's own check (SQLite's
 * `quick_check`: what is damaged, a table or an index, and the command that repairs it), and
 * what the store warns of (a file older than one this installation saw). One line each.
 */
export async function checkDatabase(database: Database | undefined): Promise<DoctorCheck[]> {
  if (!database) return [{ check: 'database', status: 'skip', detail: 'no store plugin (sqlite, postgres) is enabled: sessions live in memory and are lost at exit' }];
  try {
    return databaseChecks(await database.inspect({ integrity: true }));
  } catch (error) {
    return [failedCheck('database', error)];
  }
}

/** The lines of a database report (see {@link checkDatabase}). */
export function databaseChecks(report: DatabaseReport): DoctorCheck[] {
  const where = `${report.dialect} ${report.url}`;
  const checks: DoctorCheck[] = [];
  const newer = report.owners.filter((r) => r.database > r.code);
  if (newer.length) {
    checks.push({
      check: 'database', status: 'fail',
      detail: `${where}: the schema of ${newer.map((r) => `${r.owner} (${r.database} > ${r.code})`).join(', ')} is newer than this OryxOS`,
      fix: 'Upgrade OryxOS (and the plugins that own those tables) to the version that wrote the database, or point the store plugin at another database.',
    });
  } else {
    const pending = report.owners.flatMap((r) => r.pending.map((p) => `${r.owner} ${p.version}`));
    const versions = report.owners.map((r) => `${r.owner} ${r.code}`).join(', ');
    const fresh = report.owners.every((r) => r.database === 0);
    checks.push({
      check: 'database', status: 'ok',
      detail: !pending.length ? `${where}: opens; migrations current (${versions || 'none'})`
        : fresh ? `${where}: opens; a new database: ${pending.length} migration(s) applied at the first start`
          : `${where}: opens; ${pending.length} migration(s) pending (${pending.join(', ')}), applied at the next start or by \`oryx db migrate\``,
    });
  }
  const integrity = report.integrity;
  if (integrity?.ok) checks.push({ check: 'database integrity', status: 'ok', detail: `${integrity.check}: no damage` });
  else if (integrity) {
    const damaged = [...new Set(integrity.problems.map((p) => (p.name ? `${p.kind} ${p.name}` : p.kind === 'file' ? 'the file' : p.kind)))];
    checks.push({
      check: 'database integrity', status: 'fail',
      detail: `${integrity.check} found damage in ${damaged.join(', ')}: ${integrity.problems.slice(0, 3).map((p) => p.detail).join('; ')}`,
      ...(integrity.repair ? { fix: `Stop every OryxOS process using it, then run \`${integrity.repair}\`.` } : {}),
    });
  } else {
    checks.push({ check: 'database integrity', status: 'skip', detail: `${report.dialect} checks its own pages; OryxOS runs no check of it` });
  }
  for (const w of report.warnings) checks.push({ check: 'database', status: 'fail', detail: w.message, code: w.code, ...(w.hint ? { fix: w.hint } : {}) });
  return checks;
}

/** The (provider, model) pairs the agents use, and providers no agent uses with their default model. */
function providerTargets(kernel: Kernel, agents: AgentDefinition[]): { provider: string; model?: string; agents: string[] }[] {
  const targets = new Map<string, { provider: string; model?: string; agents: string[] }>();
  for (const agent of agents) {
    let provider;
    try { provider = kernel.providerFor(agent); } catch { continue; } // `oryx agents` reports that agent
    const model = agent.model ?? provider.defaultModel;
    const key = `${provider.name}\0${model ?? ''}`;
    (targets.get(key) ?? targets.set(key, { provider: provider.name, model, agents: [] }).get(key)!).agents.push(agent.name);
  }
  for (const name of kernel.providerNames) {
    if ([...targets.values()].some((t) => t.provider === name)) continue;
    targets.set(name, { provider: name, model: kernel.provider(name).defaultModel, agents: [] });
  }
  return [...targets.values()];
}

/**
 * Each provider answers a one-word request (no tools, no retries, within `timeoutMs`), with the
 * model its agents use — or, when it has its own `check` (a recording, which can only answer
 * what it recorded), says what that check found; a failure carries the provider's code and hint (the key variable it
 * read, the URL it could not reach, the model it could not find).
 */
export async function checkProviders(kernel: Kernel, agents: AgentDefinition[], timeoutMs: number): Promise<DoctorCheck[]> {
  const targets = providerTargets(kernel, agents);
  if (!targets.length) {
    return [{ check: 'provider', status: 'fail', detail: 'no provider plugin is enabled, so no agent can run', fix: 'Enable one in oryx.config.ts: openai(), ollama(), …' }];
  }
  return Promise.all(targets.map(async ({ provider, model, agents: users }): Promise<DoctorCheck> => {
    const check = `provider ${provider}`;
    const used = users.length ? `, agents: ${users.join(', ')}` : ', used by no agent';
    if (!model && !users.length) return { check, status: 'skip', detail: 'used by no agent and has no defaultModel: no model to ask' };
    if (!model) {
      return { check, status: 'fail', detail: `no model to ask${used}`, fix: `Set model: in the AGENT.md of its agents, or defaultModel in the options of the "${provider}" provider.` };
    }
    const started = Date.now();
    try {
      const p = kernel.provider(provider);
      if (p.check) return { check, status: 'ok', detail: `${await p.check({ model, signal: AbortSignal.timeout(timeoutMs) })}${used}` };
      const response = await kernel.provider(provider).chat({
        model, tools: [], signal: AbortSignal.timeout(timeoutMs),
        messages: [{ role: 'user', content: 'This is a connectivity check. Reply with the single word: ok' }],
      });
      return { check, status: 'ok', detail: `model ${response.model || model} answered in ${Date.now() - started} ms${used}` };
    } catch (error) {
      const e = failedCheck(check, error, `Check the options of the "${provider}" provider in oryx.config.ts and the variables it reads.`);
      return { ...e, detail: `${e.detail}${users.length ? ` (agents: ${users.join(', ')})` : ''}` };
    }
  }));
}

/**
 * Every tool source (MCP servers) is started and asked for its tools, as an agent allowed every
 * tool would; one line per source, with the reason of any that failed (a sandbox denial names
 * the program or URL it refused).
 */
export async function checkToolSources(kernel: Kernel, agent: AgentDefinition | undefined): Promise<DoctorCheck[]> {
  if (agent) await kernel.allTools({ ...agent, tools: ['*'] });
  const sources = await kernel.toolSourceStatus();
  if (!sources.length) return [{ check: 'tools', status: 'skip', detail: 'no tool sources (MCP servers) are declared' }];
  return sources.map((s): DoctorCheck => (s.ok
    ? { check: `tools ${s.provider}/${s.name}`, status: 'ok', detail: `${s.tools} tool(s)` }
    : {
      check: `tools ${s.provider}/${s.name}`, status: 'fail', detail: s.reason ?? 'unavailable',
      fix: `Fix the "${s.name}" entry (command, url, env) where ${s.provider} servers are declared, or allow it in sandbox({ exec, http }) when the sandbox denied it.`,
    }));
}

/**
 * What each door that can check itself says (a channel's server reachable, its credentials
 * accepted), within `timeoutMs`; a door that throws is a failed line naming it.
 */
export async function checkDoors(kernel: Kernel, timeoutMs: number): Promise<DoctorCheck[]> {
  const doors = kernel.doors.filter((d) => d.check);
  const lines = await Promise.all(doors.map(async (door): Promise<DoctorCheck[]> => {
    try {
      return await door.check!({ signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      return [failedCheck(`door ${door.name}`, error, `Check the options of the plugin that adds the "${door.name}" door in oryx.config.ts.`)];
    }
  }));
  return lines.flat().map((c) => ({ ...c, detail: kernel.secrets.mask(c.detail), ...(c.fix ? { fix: kernel.secrets.mask(c.fix) } : {}) }));
}

/** The port `oryx web` will listen on is free (when the web plugin is enabled). */
export async function checkWebPort(config: ResolvedConfig): Promise<DoctorCheck> {
  const web = config.plugins.find((p) => p.name === 'web');
  if (!web) return { check: 'web port', status: 'skip', detail: 'the web plugin is not enabled' };
  const { host = '127.0.0.1', port = 8787 } = (web.options ?? {}) as { host?: string; port?: number };
  if (port === 0) return { check: 'web port', status: 'ok', detail: 'port 0: oryx web picks a free port' };
  const problem = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    const server = createServer();
    server.once('error', resolve);
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
  if (!problem) return { check: 'web port', status: 'ok', detail: `${host}:${port} is free` };
  return {
    check: 'web port', status: 'fail', detail: `${host}:${port} cannot be used: ${problem.code === 'EADDRINUSE' ? 'another program listens on it' : problem.message}`,
    code: problem.code, fix: 'Stop the program that holds it, or pick another port: web({ port }) in oryx.config.ts, or oryx web --port.',
  };
}

type Entry = { source?: string; command?: string };
const list = (entries: (Entry | string)[] | undefined, show: (e: Entry) => string | undefined) =>
  (entries?.length ? entries.map((e) => (typeof e === 'string' ? e : show(e) ?? JSON.stringify(e))).join(', ') : 'nothing');

/**
 * What the sandbox allows, read from the sandbox plugin's resolved options; its start-up
 * warnings come as `warn` lines of the plugins check.
 */
export function sandboxSummary(config: ResolvedConfig): DoctorCheck {
  const plugin = config.plugins.find((p) => p.name === 'sandbox');
  if (!plugin) return { check: 'sandbox', status: 'warn', detail: 'no sandbox plugin: every file, program, HTTP and SMTP action of agents and tools is denied' };
  const rules = (plugin.options ?? {}) as {
    files?: { read?: string[]; write?: string[]; deny?: string[] };
    exec?: Entry[]; http?: Entry[]; smtp?: Entry[]; confine?: boolean;
  };
  const parts = [
    `files read: ${list(rules.files?.read, () => undefined)}`,
    `files write: ${list(rules.files?.write, () => undefined)}`,
    `exec: ${list(rules.exec, (e) => e.command)}`,
    `http: ${list(rules.http, (e) => e.source)}`,
    `smtp: ${list(rules.smtp, (e) => e.source)}`,
    rules.confine === false ? 'programs NOT confined (confine: false)' : 'programs confined (bubblewrap)',
  ];
  return { check: 'sandbox', status: 'ok', detail: parts.join('; ') };
}

/** A path each line of a `.gitignore` covers: `logs/` → `logs/x`, `agents/*\/users/` → `agents/x/users/x`. */
const coveredBy = (pattern: string) => pattern.replace(/\*\*\//g, 'x/').replace(/\*/g, 'x').replace(/\/$/, '/x');

/** Runs git in `root` (no fsmonitor hook); its stdout, or undefined when git is missing or fails. */
function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-c', 'core.fsmonitor=false', ...args], { cwd: root, timeout: 10_000, encoding: 'utf8' }, (error, stdout) => {
      // check-ignore exits 1 when it ignores none of the paths: an answer, not a failure.
      resolve(!error || (error as { code?: unknown }).code === 1 ? stdout : undefined);
    });
  });
}

/**
 * What the workspace keeps for this machine stays out of git: every line of the `.gitignore`
 * that `oryx init` writes (the database, its journals and high-water mark, the sandbox's records,
 * logs, the REST token, people's memories), tested with `git check-ignore` on a path it covers,
 * and none of those files committed. Committed, the high-water mark makes a teammate's own
 * database look damaged. Only in a git work tree with git installed; runs nothing but git.
 */
export async function checkGitIgnores(workspaceDir: string): Promise<DoctorCheck> {
  let root = workspaceDir;
  while (!existsSync(path.join(root, '.git'))) {
    if (path.dirname(root) === root) return { check: 'git', status: 'skip', detail: 'not in a git work tree' };
    root = path.dirname(root);
  }
  const lines = WORKSPACE_GITIGNORE.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const rel = (p: string) => path.relative(root, path.join(workspaceDir, p)).split(path.sep).join('/');
  const samples = lines.map((line) => rel(coveredBy(line)));
  const ignored = await git(root, ['check-ignore', '--no-index', '--', ...samples]);
  const committed = await git(root, ['ls-files', '--cached', '--ignored', '--exclude-standard', '--', rel('.')]);
  if (ignored === undefined || committed === undefined) return { check: 'git', status: 'skip', detail: 'git did not answer (is it installed?)' };
  const shown = path.relative(process.cwd(), workspaceDir) || '.';
  const said = new Set(ignored.split('\n').filter(Boolean));
  const missing = lines.filter((_, i) => !said.has(samples[i]!));
  const tracked = committed.split('\n').filter(Boolean);
  if (missing.length) {
    return {
      check: 'git', status: 'warn', detail: `git does not ignore what ${shown}/ keeps for this machine: ${missing.join(', ')}`,
      fix: `Add these lines to ${shown}/.gitignore: ${missing.join(', ')} (oryx init writes them in a new project)${tracked.length ? `; and take the committed ones out of git: git rm --cached ${tracked.join(' ')}` : ''}.`,
    };
  }
  if (tracked.length) {
    return { check: 'git', status: 'warn', detail: `committed although they are this machine's: ${tracked.join(', ')}`, fix: `git rm --cached ${tracked.join(' ')} (the files stay here; git stops tracking them).` };
  }
  return { check: 'git', status: 'ok', detail: `${shown}/: git ignores what it keeps for this machine (database, journals, sandbox records, logs, token, people's memories)` };
}
