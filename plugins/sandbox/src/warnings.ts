import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { canonicalPath, resolveExecutable } from '@oryxos/plugin-kit';
import { projectGuards } from './control-files.ts';
import { readBook } from './deny-identity.ts';
import { operatorFiles, sandboxStateDir } from './operator-files.ts';
import { sandboxError } from './errors.ts';
import { parseRules, type Rules, type SandboxOptions } from './options.ts';
import { isWithin } from './paths.ts';
import { Policy } from './policy.ts';

/** Where a sandbox policy applies: the project folder, its workspace and its config file. */
export interface SandboxPlace {
  /** The folder of oryx.config.ts: relative paths resolve against it. */
  root: string;
  workspaceDir: string;
  configFile?: string;
}

/** The programs confinement uses, found on PATH (none inside a write root: an agent could replace them). */
export interface ConfinementTools { bwrap?: string; socat?: string; prlimit?: string }

const CONFINERS = ['bwrap', 'socat', 'prlimit'] as const;

/** Where the identities of the deny entries are kept between starts. */
export const identityBookFile = (workspaceDir: string) => path.join(sandboxStateDir(workspaceDir), 'deny-identities.json');

export interface BuiltPolicy {
  policy: Policy;
  /** The workspace as a real path (where the operator's files are). */
  workspace: string;
  /** Where the deny identities are kept; `policy.book` says whether they changed. */
  bookFile: string;
  tools: ConfinementTools;
  /** Everything in the policy that can surprise: what `oryx doctor` and the start-up warning show. */
  warnings: string[];
}

/**
 * Resolves the global policy on disk and lists what in it can surprise: roots that do not
 * exist, commands not found, shells allowed without argument rules, programs or opted-in
 * control files inside write roots, confinement switched off or not available.
 */
export async function buildPolicy(rules: Rules, place: SandboxPlace): Promise<BuiltPolicy> {
  const warnings: string[] = [];
  const root = await realpath(place.root);
  // The operator's files (the token, the database, logs, users' memories) are denied to every agent.
  const workspace = await canonicalPath(path.resolve(place.workspaceDir)).catch(() => path.resolve(place.workspaceDir));
  const operator = operatorFiles(workspace, root);
  const bookFile = identityBookFile(workspace);
  // Walks of the disk that do not depend on each other start at once: the config's imports, the
  // confinement programs on PATH (each a walk of PATH), and the roots (in Policy.build). The
  // programs are looked for only when a program may ever start (an exec allow or ask entry).
  const guards = projectGuards({ configFile: place.configFile, workspaceDir: place.workspaceDir });
  const launches = rules.confine !== false && (rules.exec?.length || rules.execAsk?.length);
  const found = launches ? Promise.all(CONFINERS.map((name) => resolveExecutable(name, root))) : undefined;
  let policy: Policy;
  try {
    policy = await Policy.build(rules, { root, scope: 'global', warn: (m) => warnings.push(m), guards: await guards, operator, book: await readBook(bookFile) });
  } catch (error) {
    const field = (error as { field?: string }).field ?? 'files';
    throw sandboxError('ORYX_E_SANDBOX_ROOT', `sandbox(): option ${field} ${(error as Error).message}`, { cause: error, data: { field } });
  }
  const write = policy.write ?? [];
  for (const [i, pattern] of (rules.files?.allowControlWrites ?? []).entries()) {
    const literal = path.resolve(root, pattern.split(/[*?]/)[0]!.replace(/\/$/, '') || '.');
    const inside = write.find((w) => isWithin(literal, w.path) || isWithin(w.path, literal));
    if (inside) {
      warnings.push(`files.allowControlWrites.${i} (${JSON.stringify(pattern)}) lets agents write control files inside the write root ${inside.source}: `
        + 'what they write there is read as code, policy or prompt later');
    }
  }
  const tools: ConfinementTools = {};
  const programs = (policy.exec ?? []).length > 0;
  if (!policy.confine) {
    if (programs) warnings.push('confine: false — programs on the exec allow-list run with your full rights; only the decision to start them is checked');
    return { policy, workspace, bookFile, tools, warnings };
  }
  const paths = await found;
  for (const [i, name] of CONFINERS.entries()) {
    const at = paths?.[i];
    const writable = at && write.find((w) => isWithin(at, w.path));
    if (writable) warnings.push(`${name} (${at}) is inside the write root ${writable.source}, so it is not used: an agent could replace it`);
    tools[name] = writable ? undefined : at;
  }
  if (!programs) return { policy, workspace, bookFile, tools, warnings };
  if (process.platform !== 'linux') {
    warnings.push(`programs can only be confined on Linux; on ${process.platform} every program start is refused until sandbox({ confine: false }) is set`);
  } else if (!tools.bwrap) {
    warnings.push('bubblewrap (bwrap) was not found: every program start is refused until it is installed (apt-get install bubblewrap), or sandbox({ confine: false }) is set');
  }
  if (policy.http?.length && !tools.socat) {
    warnings.push('socat was not found: confined programs get no network at all, although http.allow is not empty (apt-get install socat to let them through the OryxOS proxy)');
  }
  const limited = rules.limits || (rules.exec ?? []).some((e) => e.limits);
  if (limited && !tools.prlimit) warnings.push('prlimit was not found: exec limits cannot be applied, so programs with limits are refused');
  return { policy, workspace, bookFile, tools, warnings };
}

/**
 * The sandbox's start-up warnings for a set of options, as `oryx doctor` shows them: the same
 * list the plugin logs once when OryxOS starts.
 *
 * @example
 * const warnings = await sandboxWarnings({ files: { write: ['.'] }, exec: { allow: ['./bin/tool'] } }, { root: '/proj', workspaceDir: '/proj/.oryxos' });
 */
export async function sandboxWarnings(options: SandboxOptions, place: SandboxPlace): Promise<string[]> {
  const parsed = parseRules(options);
  if (!parsed.ok) return [`sandbox(): option ${parsed.field} ${parsed.message}`];
  return (await buildPolicy(parsed.rules, place)).warnings;
}
