import path from 'node:path';
import { errorMessage } from '@oryxos/provider-spec';
import { matchesToolPattern } from '@oryxos/schema-kit';
import type { PluginContext, Prompt, RunContext } from '@oryxos/kernel';
import { Lru } from './cache.ts';
import type { FileMemoryStore, MemorySource } from './file-store.ts';
import { memorySection, type MemorySection } from './inject.ts';
import type { MemorySources } from './scope.ts';

/** Sections kept, by the versions of the files they were built from. */
const SECTIONS_KEPT = 2048;

/** Where the entries of a section come from, as the model reads it. */
function describe(sources: MemorySource[], relative: (file: string) => string): string {
  const used = sources.filter((s) => s.core.length || s.archive.length);
  if (used.length === 1 && used[0]!.scope === 'agent') return `kept in ${relative(used[0]!.path)}`;
  const parts = used.map((s) => (s.scope === 'agent'
    ? `the agent's memory (${relative(s.path)}, shared by everyone who talks to this agent)`
    : s.scope === 'user' ? `this user's memory (${relative(s.path)})` : "this conversation's own memory (with checkpoints of its earlier turns)"));
  return `from ${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]}`;
}

/**
 * The `prepareStep` work of the memory plugin: the section `Long-term memory` built from the
 * run's memory files (the agent's, the user's, the session's). The files come from the
 * store's cache (one `stat` each when unchanged) and the section itself is kept by the files'
 * versions, so a prompt costs the same with 10 entries as with 100,000. `migrate` is called
 * when the agent's file still holds checkpoints of conversations (which the section leaves
 * out either way).
 *
 * @example
 * const build = memoryPrompt(kernel, store, { budgetChars: 4000 });
 * prompt = await build(prompt, run, { user: 'ana', session: run.sessionId }, () => migrateCheckpoints(store, 'assistant', exists));
 */
export function memoryPrompt(kernel: PluginContext, store: FileMemoryStore, options: { budgetChars: number }) {
  const sections = new Lru<string, MemorySection | null>(SECTIONS_KEPT);
  const warned = new Set<string>();
  const relative = (file: string) => path.relative(kernel.config.root, file) || file;

  return async function memoryPromptSection(prompt: Prompt, run: RunContext, wanted: MemorySources, migrate: () => Promise<void>): Promise<Prompt> {
    let sources: MemorySource[];
    try {
      let found = await store.sources(run.agent.name, wanted);
      if (found.stray) {
        await migrate();
        found = await store.sources(run.agent.name, wanted);
      }
      sources = found.sources;
    } catch (error) {
      // A memory file that cannot be read must not stop the agent, but it is never silent.
      const reason = `long-term memory not injected: ${errorMessage(error)}`;
      prompt.report.cut.push({ section: 'memory', chars: 0, reason });
      kernel.log.warn(reason);
      return prompt;
    }
    const recallHint = run.agent.tools.some((p) => matchesToolPattern('recall_memory', p));
    const key = `${options.budgetChars}|${recallHint}|${sources.map((s) => `${s.path}@${s.sig}`).join('|')}`;
    let section = sections.get(key);
    if (section === undefined) {
      const core = sources.flatMap((s) => s.core);
      const archive = sources.flatMap((s) => s.archive);
      section = core.length || archive.length
        ? memorySection({ from: describe(sources, relative), core, archive }, { budgetChars: options.budgetChars, recallHint })
        : null;
      sections.set(key, section);
    }
    if (!section) return prompt;
    prompt.memory.push({ id: 'memory', title: 'Long-term memory', content: section.content });
    prompt.report.cut.push(...section.cut.map((c) => ({ ...c })));
    const over = section.cut.find((c) => c.section === 'memory:core');
    const files = sources.map((s) => relative(s.path)).join(', ');
    if (over && !warned.has(`${files}:${section.coreChars}`)) {
      warned.add(`${files}:${section.coreChars}`);
      kernel.log.warn(`${files}: ${over.reason}`);
    }
    return prompt;
  };
}
