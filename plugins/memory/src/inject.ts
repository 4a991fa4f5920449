import type { MemoryEntry } from '@oryxos/contracts';
import type { PromptReport } from '@oryxos/kernel';
import { formatEntry } from './format.ts';

/** The memory section for one prompt, and what was left out of it. */
export interface MemorySection {
  content: string;
  /** Report lines for `prompt.report.cut` (Archive entries left out, Core over budget). */
  cut: PromptReport['cut'];
  /** Archive entries shown and in the file. */
  archiveShown: number;
  archiveTotal: number;
  coreChars: number;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const block = (entries: MemoryEntry[]) => (entries.length ? entries.map(formatEntry).join('\n') : '(empty)');

/**
 * Lays out the memory section within `budgetChars` (`from` says where the entries come from,
 * when they come from several files): Core whole, always (even when it alone
 * is over the budget, which the report then says); then the newest Archive entries that fit
 * (by date, later in the file first among equal dates; undated counts as oldest), shown in
 * file order, with a note of how many older ones were left out and how to search them.
 *
 * @example
 * const s = memorySection({ core, archive }, { budgetChars: 4000, recallHint: true });
 * prompt.memory.push({ id: 'memory', title: 'Long-term memory', content: s.content });
 */
export function memorySection(
  zones: { path?: string; from?: string; core: MemoryEntry[]; archive: MemoryEntry[] },
  options: { budgetChars: number; recallHint: boolean },
): MemorySection {
  const intro = `Lasting facts ${zones.from ?? `kept in ${zones.path ? zones.path : 'MEMORY.md'}`}. Core is always shown in full; `
    + 'the Archive shows its newest entries that fit.';
  const head = `${intro}\n\n### Core\n${block(zones.core)}\n\n### Archive\n`;
  const coreChars = block(zones.core).length;
  const cut: PromptReport['cut'] = [];
  if (head.length > options.budgetChars) {
    cut.push({
      section: 'memory:core',
      chars: 0,
      reason: `Core is ${fmt(coreChars)} characters (${fmt(head.length)} with the section's headings), over the memory budget of `
        + `${fmt(options.budgetChars)}: injected whole, since Core is never cut`,
    });
  }

  const all = zones.archive;
  const total = all.length;
  const sizes = all.map((e) => formatEntry(e).length + 1);
  const totalChars = sizes.reduce((n, s) => n + s, 0);
  const note = (count: number, chars: number) => `(${fmt(count)} older archive ${count === 1 ? 'entry' : 'entries'}, `
    + `${fmt(chars)} characters, not shown${options.recallHint ? '; search them with recall_memory' : ''}.)`;

  let kept: number[];
  if (head.length + Math.max(0, totalChars - 1) <= options.budgetChars) {
    kept = all.map((_, i) => i);
  } else {
    const room = options.budgetChars - head.length - note(total, totalChars).length - 1;
    const newestFirst = all.map((e, i) => ({ e, i })).sort((a, b) =>
      (b.e.date || '').localeCompare(a.e.date || '') || b.i - a.i);
    kept = [];
    let used = 0;
    for (const { i } of newestFirst) {
      if (used + sizes[i]! > room) break;
      used += sizes[i]!;
      kept.push(i);
    }
    kept.sort((a, b) => a - b);
  }

  const shown = kept.map((i) => all[i]!);
  let content = head + (shown.length ? shown.map(formatEntry).join('\n') : total ? '' : '(empty)');
  if (shown.length < total) {
    const leftChars = totalChars - kept.reduce((n, i) => n + sizes[i]!, 0);
    content += `${shown.length ? '\n' : ''}${note(total - shown.length, leftChars)}`;
    cut.push({
      section: 'memory:archive',
      chars: leftChars,
      reason: `${total - shown.length} of ${total} archive entries (the oldest) left out to fit the memory budget of ${fmt(options.budgetChars)} characters`,
    });
  }
  return { content, cut, archiveShown: shown.length, archiveTotal: total, coreChars };
}
