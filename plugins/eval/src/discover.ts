import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { assertUniqueNames, readCaseFile } from './case-file.ts';
import type { EvalCase } from './cases.ts';
import { evalError } from './errors.ts';

/** What `oryx eval [AGENT|PATH]` names, and the project it is in. */
export interface DiscoverInput {
  /** An agent name, a folder of case files, one case file, or nothing (every agent's evals). */
  target?: string;
  workspaceDir: string;
  defaultAgent: string;
  /** Keep only cases whose name matches (`*` globs; otherwise a case-insensitive substring). */
  filter?: string;
}

const isCaseFile = (f: string) => /\.ya?ml$/i.test(f);

/** The case files directly in `dir`, sorted (cassettes live in a subfolder and are not cases). */
async function caseFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter(isCaseFile).sort().map((n) => path.join(dir, n));
}

/** The agent whose evals folder `dir` is (`<workspace>/agents/<name>/evals`), if it is one. */
function agentOfFolder(dir: string, workspaceDir: string): string | undefined {
  const rel = path.relative(path.join(workspaceDir, 'agents'), dir).split(path.sep);
  return rel.length === 2 && rel[1] === 'evals' && rel[0] && !rel[0].startsWith('..') ? rel[0] : undefined;
}

/** Whether `target` names a path rather than an agent: it exists, or it looks like one. */
const looksLikePath = (target: string) => existsSync(target) || /[\\/]/.test(target) || isCaseFile(target);

/**
 * The cases `oryx eval` runs: those of the agent named (`.oryxos/agents/<name>/evals/*.yaml`),
 * of the folder or file named, or, with nothing named, of every agent that has an evals folder.
 * Each case file is read and checked; a filter that leaves nothing, or no case at all, is
 * ORYX_E_EVAL_NO_CASES.
 *
 * @example
 * const cases = await discoverCases({ target: 'assistant', workspaceDir: '/proj/.oryxos', defaultAgent: 'assistant' });
 */
export async function discoverCases(input: DiscoverInput): Promise<EvalCase[]> {
  const groups: { files: string[]; agent: string }[] = [];
  const agentsDir = path.join(input.workspaceDir, 'agents');
  let looked: string;
  if (!input.target) {
    const agents = (await readdir(agentsDir).catch(() => [] as string[])).sort();
    for (const agent of agents) groups.push({ agent, files: await caseFiles(path.join(agentsDir, agent, 'evals')) });
    looked = `${path.join(agentsDir, '*', 'evals')}`;
  } else if (looksLikePath(input.target)) {
    const target = path.resolve(input.target);
    const info = await stat(target).catch(() => undefined);
    if (!info) throw evalError('ORYX_E_EVAL_NO_CASES', `No such file or folder: ${input.target}`);
    const dir = info.isDirectory() ? target : path.dirname(target);
    groups.push({ agent: agentOfFolder(dir, input.workspaceDir) ?? input.defaultAgent, files: info.isDirectory() ? await caseFiles(target) : [target] });
    looked = input.target;
  } else {
    const dir = path.join(agentsDir, input.target, 'evals');
    if (!existsSync(path.join(agentsDir, input.target))) {
      throw evalError('ORYX_E_EVAL_NO_CASES', `No agent "${input.target}" (no ${path.join(agentsDir, input.target)}) and no such file or folder`, {
        hint: 'Name an agent `oryx agents` lists, or a folder of case files.',
      });
    }
    groups.push({ agent: input.target, files: await caseFiles(dir) });
    looked = dir;
  }
  const cases: EvalCase[] = [];
  for (const group of groups) {
    for (const file of group.files) cases.push(...await readCaseFile(file, { defaultAgent: group.agent }));
  }
  assertUniqueNames(cases);
  if (!cases.length) {
    throw evalError('ORYX_E_EVAL_NO_CASES', `No case files (*.yaml) in ${path.relative(process.cwd(), looked) || looked}`);
  }
  const kept = input.filter ? cases.filter(matcher(input.filter)) : cases;
  if (!kept.length) {
    throw evalError('ORYX_E_EVAL_NO_CASES', `--filter ${JSON.stringify(input.filter)} matches none of the ${cases.length} case(s): ${cases.map((c) => c.name).join(', ')}`, {
      hint: 'A filter is part of a case name (any case), or a pattern with * (the whole name).',
    });
  }
  return kept;
}

/** `--filter`: a `*` pattern against the whole name, else a case-insensitive part of it. */
export function matcher(filter: string): (c: EvalCase) => boolean {
  if (filter.includes('*')) {
    const re = new RegExp(`^${filter.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
    return (c) => re.test(c.name);
  }
  const part = filter.toLowerCase();
  return (c) => c.name.toLowerCase().includes(part);
}
