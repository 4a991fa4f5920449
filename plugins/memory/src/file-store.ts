import { access, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/kernel';
import type { LongTermMemoryStore, MemoryEntry, MemoryZones } from '@oryxos/kernel';
import { removeLeftovers, writeFileAtomic } from './atomic.ts';
import { insertEntries, normalizeText, parseMemory, renderedChars, type ParsedMemory, type Zone } from './format.ts';
import { KeyedMutex, withFileLock } from './lock.ts';
import { rank } from './search.ts';

export interface FileMemoryStoreOptions {
  /** The workspace folder (`kernel.config.workspaceDir`, usually `<project>/.oryxos`). */
  workspaceDir: string;
  /** Cap on the Core zone, in rendered characters, enforced when saving to Core. Default 2000. */
  coreMaxChars?: number;
  /** How long a save waits for another writer's lock. Default 5000 ms. */
  lockTimeoutMs?: number;
  /** A lock older than this is taken over even if its owner seems alive. Default 30000 ms. */
  staleLockMs?: number;
  /** The clock for entry dates (tests). */
  now?: () => Date;
}

/** What a save did: the entry, and whether an identical one was already there. */
export interface SaveOutcome { entry: MemoryEntry; duplicate: boolean; path: string }

/** A runtime-written archive entry, deduplicated by `key` (a marker the text ends with). */
export interface CheckpointItem { key: string; text: string }

const AGENT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** `YYYY-MM-DD` in local time: the date a person reading MEMORY.md expects. */
export function isoDate(d: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

const exists = (file: string) => access(file).then(() => true, () => false);
const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ') === b.replace(/\s+/g, ' ');

function ioError(file: string, action: string, error: unknown): OryxError {
  if (isOryxError(error)) return error;
  return new OryxError('ORYX_E_MEMORY_IO', `Could not ${action} ${file}: ${errorMessage(error)}`, {
    cause: error,
    hint: 'Check that the folder exists and that oryx may read and write it.',
    data: { path: file },
  });
}

/**
 * The file text with the entries appended to the zone, checked by parsing it back: a save
 * that would not be read (hidden by an unclosed comment) fails instead of vanishing.
 */
function appendChecked(current: { path: string; text: string; parsed: ParsedMemory }, zone: Zone, entries: MemoryEntry[]): string {
  const text = insertEntries(current.text, zone, entries);
  const after = parseMemory(text)[zone];
  const added = after.slice(after.length - entries.length);
  const ok = after.length === current.parsed[zone].length + entries.length
    && added.every((e, i) => e.date === entries[i]!.date && e.text === entries[i]!.text);
  if (!ok) {
    throw new OryxError('ORYX_E_MEMORY_FILE_INVALID', `${current.path} has markup that would hide the new entry, so it was not saved`, {
      hint: 'Look for an unclosed <!-- comment in the file and fix it by hand.',
      data: { path: current.path },
    });
  }
  return text;
}

/**
 * Long-term memory in MEMORY.md files, one per agent (`<workspace>/agents/<name>/MEMORY.md`)
 * or shared (`<workspace>/memory/MEMORY.md`). Reads go to the file every time (no cache), so
 * hand edits show at once. Saves are read-modify-write under an in-process mutex and a lock
 * file, and replace the file atomically, so concurrent writers lose nothing and a crash
 * leaves the old or the new file.
 *
 * @example
 * const store = new FileMemoryStore({ workspaceDir: '/project/.oryxos' });
 * await store.save('assistant', 'The user prefers metric units', 'core');
 * const hits = await store.recall('assistant', 'units');
 */
export class FileMemoryStore implements LongTermMemoryStore {
  readonly workspaceDir: string;
  readonly coreMaxChars: number;
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;
  private readonly now: () => Date;
  private readonly mutex = new KeyedMutex();

  constructor(options: FileMemoryStoreOptions) {
    this.workspaceDir = path.resolve(options.workspaceDir);
    this.coreMaxChars = options.coreMaxChars ?? 2000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5000;
    this.staleLockMs = options.staleLockMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
  }

  /** The per-agent file and the shared one, whichever is used or not. */
  paths(agent: string): { agent: string; shared: string } {
    if (!AGENT_NAME.test(agent)) {
      throw new OryxError('ORYX_E_MEMORY_AGENT_INVALID', `"${agent}" is not a valid agent name`, {
        hint: 'Agent names are folder names: letters, digits, _ . and -.',
      });
    }
    return {
      agent: path.join(this.workspaceDir, 'agents', agent, 'MEMORY.md'),
      shared: path.join(this.workspaceDir, 'memory', 'MEMORY.md'),
    };
  }

  /** The file in use for an agent: its own MEMORY.md when it exists, else the shared one. */
  async pathFor(agent: string): Promise<string> {
    const { agent: own, shared } = this.paths(agent);
    return (await exists(own)) ? own : shared;
  }

  /** The file in use, its text ('' when missing) and its parse. */
  async load(agent: string): Promise<{ path: string; exists: boolean; text: string; parsed: ParsedMemory }> {
    const file = await this.pathFor(agent);
    let text = '';
    let found = true;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(file, 'read', error);
      found = false;
    }
    return { path: file, exists: found, text, parsed: parseMemory(text) };
  }

  async read(agent: string): Promise<MemoryZones> {
    const { path: file, parsed } = await this.load(agent);
    const plain = ({ date, text }: MemoryEntry) => ({ date, text });
    return { path: file, core: parsed.core.map(plain), archive: parsed.archive.map(plain) };
  }

  async save(agent: string, text: string, zone: Zone = 'archive'): Promise<MemoryEntry> {
    return (await this.saveEntry(agent, text, zone)).entry;
  }

  /**
   * Appends a dated entry to a zone; saving text identical to an entry already in that zone
   * changes nothing. Throws ORYX_E_MEMORY_CORE_FULL when Core would pass `coreMaxChars`.
   */
  async saveEntry(agent: string, text: string, zone: Zone = 'archive'): Promise<SaveOutcome> {
    if (zone !== 'core' && zone !== 'archive') {
      throw new OryxError('ORYX_E_MEMORY_ZONE_INVALID', `Unknown memory zone "${String(zone)}"`, { hint: "Use 'core' or 'archive'." });
    }
    const clean = typeof text === 'string' ? normalizeText(text) : '';
    if (!clean) throw new OryxError('ORYX_E_MEMORY_TEXT_INVALID', 'Nothing to save: the text is empty', { hint: 'Pass the fact to remember as text.' });
    const entry: MemoryEntry = { date: isoDate(this.now()), text: clean };
    return this.update<Omit<SaveOutcome, 'path'>>(agent, (current) => {
      const existing = current.parsed[zone].find((e) => sameText(e.text, clean));
      if (existing) return { result: { entry: { date: existing.date, text: existing.text }, duplicate: true } };
      if (zone === 'core') {
        const before = renderedChars(current.parsed.core);
        const after = renderedChars([...current.parsed.core, entry]);
        if (after > this.coreMaxChars) {
          throw new OryxError('ORYX_E_MEMORY_CORE_FULL',
            `Core memory is full: it has ${before} of ${this.coreMaxChars} characters and this entry needs ${after - before} more`, {
              hint: "Save it to the archive instead (zone 'archive'), or shorten Core by editing MEMORY.md.",
              data: { coreChars: before, coreMaxChars: this.coreMaxChars, entryChars: after - before },
            });
        }
      }
      return { text: appendChecked(current, zone, [entry]), result: { entry, duplicate: false } };
    });
  }

  async recall(agent: string, query: string, limit = 5): Promise<(MemoryEntry & { score: number })[]> {
    const { archive } = await this.read(agent);
    const hits = rank(archive.map((e) => `${e.date} ${e.text}`), query, limit);
    return hits.map((h) => ({ ...archive[h.index]!, score: Math.round(h.score * 1000) / 1000 }));
  }

  /**
   * Appends runtime checkpoints to the Archive in one write, skipping every item whose key
   * the file already contains, so the same turn is never written twice, whoever trims it.
   */
  async checkpoint(agent: string, items: CheckpointItem[]): Promise<{ path: string; written: number }> {
    if (!items.length) return { path: await this.pathFor(agent), written: 0 };
    return this.update<{ written: number }>(agent, (current) => {
      const seen = new Set<string>();
      const fresh = items.filter((i) => {
        if (current.text.includes(i.key) || seen.has(i.key)) return false;
        seen.add(i.key);
        return true;
      });
      const written = fresh.length;
      if (!written) return { result: { written } };
      const date = isoDate(this.now());
      const entries = fresh.map((i) => ({ date, text: normalizeText(i.text.endsWith(i.key) ? i.text : `${i.text} ${i.key}`) }));
      return { text: appendChecked(current, 'archive', entries), result: { written } };
    });
  }

  /**
   * Read-modify-write of the file in use, under the in-process mutex and the lock file, so
   * nothing another writer saved in between is lost. `change` returns the new text (or none
   * to leave the file alone) and a result.
   */
  private async update<R extends object>(
    agent: string,
    change: (current: { path: string; text: string; parsed: ParsedMemory }) => { text?: string; result: R },
  ): Promise<R & { path: string }> {
    const file = await this.pathFor(agent);
    return this.mutex.run(file, async () => {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        return await withFileLock(`${file}.lock`, { timeoutMs: this.lockTimeoutMs, staleMs: this.staleLockMs }, async () => {
          await removeLeftovers(file);
          let text = '';
          try {
            text = await readFile(file, 'utf8');
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          }
          const out = change({ path: file, text, parsed: parseMemory(text) });
          if (out.text !== undefined && out.text !== text) await writeFileAtomic(file, out.text);
          return { ...out.result, path: file };
        });
      } catch (error) {
        throw ioError(file, 'write', error);
      }
    });
  }
}
