import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Kernel, LongTermMemoryStore } from '@oryxos/kernel';
import { FileMemoryStore } from './file-store.ts';
import { formatEntry } from './format.ts';

/**
 * The memory store the `oryx memory` commands use: the `memory` service when a plugin
 * provides it, else the MEMORY.md files read directly (with a warning), so the commands
 * still work in a project that has not enabled the plugin.
 */
export function storeFor(kernel: Kernel): LongTermMemoryStore {
  if (kernel.hasService('memory')) return kernel.service('memory');
  // Straight to stderr: oclif silences its own log methods under --json, and this matters then too.
  process.stderr.write('warning: the memory plugin is not enabled in oryx.config.ts; using the MEMORY.md files directly\n');
  return new FileMemoryStore({ workspaceDir: kernel.config.workspaceDir });
}

/** A path relative to the working directory when that is shorter, for people to read. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** The zones as people read them in the terminal. */
export function renderZones(zones: { path: string; core: { date: string; text: string }[]; archive: { date: string; text: string }[] }): string {
  const zone = (title: string, entries: { date: string; text: string }[]) =>
    `${title} (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'})\n${entries.length ? entries.map(formatEntry).join('\n') : '(empty)'}`;
  const where = `${displayPath(zones.path)}${existsSync(zones.path) ? '' : ' (does not exist yet; the first save creates it)'}`;
  return `${where}\n\n${zone('Core', zones.core)}\n\n${zone('Archive', zones.archive)}`;
}
