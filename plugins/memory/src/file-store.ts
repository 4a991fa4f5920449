import { access, mkdir, open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { LongTermMemoryStore, MemoryEntry, MemoryZones } from '@oryxos/contracts';
import { removeLeftovers, writeFileAtomic } from './atomic.ts';
import { memoize, ParsedFileCache, type LoadedFile } from './cache.ts';
import { checkpointKeyOf, checkpointSession } from './checkpoint.ts';
import { extendArchive, formatEntry, insertEntries, normalizeText, parseMemory, removeEntries, renderedChars, type ParsedMemory, type Zone } from './format.ts';
import { KeyedMutex, withFileLock } from './lock.ts';
import { DEFAULT_ROTATE_BYTES, agentPaths, defaultSessionsDir, sessionDirOf } from './paths.ts';
import { archiveFiles, planRotation, writeArchiveFiles } from './rotate.ts';
import { checkId, fileSafeName, type MemoryScope, type MemorySources, type ScopeTarget } from './scope.ts';
import { SearchIndex, searchIndexes } from './search.ts';

export interface FileMemoryStoreOptions {
  /** The workspace folder (`kernel.config.workspaceDir`, usually `<project>/.oryxos`). */
  workspaceDir: string;
  /** Cap on the Core zone, in rendered characters, enforced when saving to Core. Default 2000. */
  coreMaxChars?: number;
  /** How long a save waits for another writer's lock. Default 5000 ms. */
  lockTimeoutMs?: number;
  /** A lock older than this is taken over even if its owner seems alive. Default 30000 ms. */
  staleLockMs?: number;
  /** A memory file past this many bytes has its oldest Archive entries rotated out. Default 256 KiB. */
  rotateBytes?: number;
  /** Where session memories (checkpoints) live. Default `<workspace>/memory/sessions`. */
  sessionsDir?: string;
  /** The clock for entry dates (tests). */
  now?: () => Date;
}

/** What a save did: the entry, and whether an identical one was already there. */
export interface SaveOutcome { entry: MemoryEntry; duplicate: boolean; path: string }

/** A runtime-written archive entry, deduplicated by `key` (a marker the text ends with). */
export interface CheckpointItem { key: string; text: string }

/** The zones of one memory file, and whose file it is. */
export interface ScopedZones extends MemoryZones { scope: MemoryScope; user?: string; session?: string }

/** A `recall` result: the entry, its score, and the memory it was found in. */
export interface RecallHit extends MemoryEntry { score: number; scope: MemoryScope }

/** One memory file as a prompt shows it. `sig` changes whenever the file does. */
export interface MemorySource { scope: MemoryScope; path: string; sig: string; core: MemoryEntry[]; archive: MemoryEntry[] }

type Current = { path: string; text: string; parsed: ParsedMemory };
type Change<R> = (current: Current) => { text?: string; parsed?: ParsedMemory; result: R } | Promise<{ text?: string; parsed?: ParsedMemory; result: R }>;

/** `YYYY-MM-DD` in local time: the date a person reading MEMORY.md expects. */
export function isoDate(d: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

const exists = (file: string) => access(file).then(() => true, () => false);
const sameText = (a: string, b: string) => a.replace(/\s+/g, ' ') === b.replace(/\s+/g, ' ');
const plain = ({ date, text }: MemoryEntry): MemoryEntry => ({ date, text });

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
function appendChecked(current: Current, zone: Zone, entries: MemoryEntry[]): { text: string; parsed: ParsedMemory } {
  const text = insertEntries(current.text, zone, entries, current.parsed);
  const parsed = parseMemory(text);
  const after = parsed[zone];
  const added = after.slice(after.length - entries.length);
  const ok = after.length === current.parsed[zone].length + entries.length
    && added.every((e, i) => e.date === entries[i]!.date && e.text === entries[i]!.text);
  if (!ok) {
    throw new OryxError('ORYX_E_MEMORY_FILE_INVALID', `${current.path} has markup that would hide the new entry, so it was not saved`, {
      hint: 'Look for an unclosed <!-- comment in the file and fix it by hand.',
      data: { path: current.path },
    });
  }
  return { text, parsed };
}

/** The Archive of an agent-scope file without checkpoints of conversations (they belong to their sessions). */
const agentArchive = (file: LoadedFile) => memoize(file, 'archive:no-checkpoints',
  () => file.parsed.archive.filter((e) => checkpointSession(e.text) === undefined));

/**
 * Long-term memory in MEMORY.md files, in three scopes:
 * - the agent's: `<workspace>/agents/<name>/MEMORY.md` when it exists, else the shared
 *   `<workspace>/memory/MEMORY.md`;
 * - a user's: `users/<user>/MEMORY.md` beside the agent's file;
 * - a session's: `<sessionsDir>/<session>/MEMORY.md`, which also holds its checkpoints.
 *
 * Reads are cached and cost one `stat` when the file has not changed. Saves are
 * read-modify-write under an in-process mutex and a lock file, replace the file atomically,
 * and rotate the oldest Archive entries into dated files under `memory-archive/` once the file
 * passes `rotateBytes`; `recall` searches those too, through an index built once per file.
 *
 * @example
 * const store = new FileMemoryStore({ workspaceDir: '/project/.oryxos' });
 * await store.save('assistant', 'Ana prefers metric units', 'core', { scope: 'user', user: 'ana' });
 * const hits = await store.recall('assistant', 'units', 5, { user: 'ana' });
 */
export class FileMemoryStore implements LongTermMemoryStore {
  readonly workspaceDir: string;
  readonly coreMaxChars: number;
  readonly rotateBytes: number;
  /** Where session memories live; the memory plugin moves it to a temp folder when sessions are not durable. */
  sessionsDir: string;
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;
  private readonly now: () => Date;
  private readonly mutex = new KeyedMutex();
  private readonly cache = new ParsedFileCache();

  constructor(options: FileMemoryStoreOptions) {
    this.workspaceDir = path.resolve(options.workspaceDir);
    this.coreMaxChars = options.coreMaxChars ?? 2000;
    this.rotateBytes = options.rotateBytes ?? DEFAULT_ROTATE_BYTES;
    this.sessionsDir = path.resolve(options.sessionsDir ?? defaultSessionsDir(this.workspaceDir));
    this.lockTimeoutMs = options.lockTimeoutMs ?? 5000;
    this.staleLockMs = options.staleLockMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
  }

  /** The per-agent file and the shared one, whichever is used or not. */
  paths(agent: string): { agent: string; shared: string } {
    return agentPaths(this.workspaceDir, agent);
  }

  /** The agent's file in use: its own MEMORY.md when it exists, else the shared one. */
  async pathFor(agent: string): Promise<string> {
    const { agent: own, shared } = this.paths(agent);
    return (await exists(own)) ? own : shared;
  }

  /** The folder of a session's memory. */
  sessionDir(session: string): string {
    return sessionDirOf(this.sessionsDir, session);
  }

  /**
   * The memory file of a scope. A user's memory sits beside the agent's file in use, so
   * agents that share the workspace memory share each user's memory too, and an agent with
   * its own MEMORY.md keeps its users' memories to itself.
   */
  async fileOf(agent: string, target: ScopeTarget = { scope: 'agent' }): Promise<string> {
    if (target.scope === 'session') return path.join(this.sessionDir(target.session), 'MEMORY.md');
    const own = await this.pathFor(agent);
    return target.scope === 'agent' ? own : this.userFile(own, target.user);
  }

  private userFile(agentFile: string, user: string): string {
    return path.join(path.dirname(agentFile), 'users', fileSafeName(checkId('user', user)), 'MEMORY.md');
  }

  /** The memory file of a scope: its path, text ('' when missing) and parse, from the cache when unchanged. */
  async load(agent: string, target?: ScopeTarget): Promise<LoadedFile> {
    const file = await this.fileOf(agent, target);
    try {
      return await this.cache.load(file);
    } catch (error) {
      throw ioError(file, 'read', error);
    }
  }

  async read(agent: string, target: ScopeTarget = { scope: 'agent' }): Promise<ScopedZones> {
    const { path: file, parsed } = await this.load(agent, target);
    return {
      path: file, scope: target.scope,
      ...(target.scope === 'user' ? { user: target.user } : target.scope === 'session' ? { session: target.session } : {}),
      core: parsed.core.map(plain), archive: parsed.archive.map(plain),
    };
  }

  async save(agent: string, text: string, zone: Zone = 'archive', target?: ScopeTarget): Promise<MemoryEntry> {
    return (await this.saveEntry(agent, text, zone, target)).entry;
  }

  /**
   * Appends a dated entry to a zone of a scope's file (the agent's by default); saving text
   * identical to an entry already in that zone changes nothing. Throws
   * ORYX_E_MEMORY_CORE_FULL when Core would pass `coreMaxChars`.
   */
  async saveEntry(agent: string, text: string, zone: Zone = 'archive', target: ScopeTarget = { scope: 'agent' }): Promise<SaveOutcome> {
    if (zone !== 'core' && zone !== 'archive') {
      throw new OryxError('ORYX_E_MEMORY_ZONE_INVALID', `Unknown memory zone "${String(zone)}"`, { hint: "Use 'core' or 'archive'." });
    }
    const clean = typeof text === 'string' ? normalizeText(text) : '';
    if (!clean) throw new OryxError('ORYX_E_MEMORY_TEXT_INVALID', 'Nothing to save: the text is empty', { hint: 'Pass the fact to remember as text.' });
    const entry: MemoryEntry = { date: isoDate(this.now()), text: clean };
    const file = await this.fileOf(agent, target);
    return this.update<Omit<SaveOutcome, 'path'>>(file, (current) => {
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
      return { ...appendChecked(current, zone, [entry]), result: { entry, duplicate: false } };
    }, target.scope === 'session' ? target.session : undefined);
  }

  /**
   * The memory files a prompt shows, in order: the agent's (without checkpoints of
   * conversations, which belong to their sessions), the user's, the session's. `stray` is true
   * while the agent's file still holds such checkpoints (written before they had their own
   * place), for the migration to move them out.
   */
  async sources(agent: string, sources: MemorySources = {}): Promise<{ sources: MemorySource[]; stray: boolean }> {
    const own = await this.pathFor(agent);
    const targets = this.targetsOf(sources);
    const files = await Promise.all(targets.map(async (t) => {
      const file = t.scope === 'agent' ? own : t.scope === 'user' ? this.userFile(own, t.user) : path.join(this.sessionDir(t.session), 'MEMORY.md');
      try {
        return await this.cache.load(file);
      } catch (error) {
        throw ioError(file, 'read', error);
      }
    }));
    const agentFile = files[0]!;
    return {
      stray: agentArchive(agentFile).length !== agentFile.parsed.archive.length,
      sources: files.map((f, i) => ({
        scope: targets[i]!.scope, path: f.path, sig: f.sig,
        core: f.parsed.core, archive: targets[i]!.scope === 'agent' ? agentArchive(f) : f.parsed.archive,
      })),
    };
  }

  /**
   * Ranked search (BM25) of the Archive of the agent's memory and of the user's and the
   * session's when given, their rotated archive files included. Each file is indexed once per
   * version, so a search costs the postings of its terms, not a parse of every file.
   */
  async recall(agent: string, query: string, limit = 5, sources: MemorySources = {}): Promise<RecallHit[]> {
    const groups: { scope: MemoryScope; entries: MemoryEntry[]; index: SearchIndex }[] = [];
    for (const target of this.targetsOf(sources)) {
      const main = await this.fileOf(agent, target);
      for (const file of [...await archiveFiles(main).catch(() => []), main]) {
        let loaded: LoadedFile;
        try {
          loaded = await this.cache.load(file);
        } catch (error) {
          throw ioError(file, 'read', error);
        }
        const entries = target.scope === 'agent' ? agentArchive(loaded) : loaded.parsed.archive;
        const index = memoize(loaded, `index:${target.scope}`, () => new SearchIndex(entries.map((e) => `${e.date} ${e.text}`)));
        groups.push({ scope: target.scope, entries, index });
      }
    }
    const seen = new Set<string>();
    const out: RecallHit[] = [];
    // A crash between writing an archive file and rewriting MEMORY.md leaves an entry in both.
    for (const h of searchIndexes(groups.map((g) => g.index), query, limit * 2 + 4)) {
      const { scope, entries } = groups[h.source]!;
      const entry = entries[h.index]!;
      const key = `${scope}\n${entry.date}\n${entry.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...plain(entry), score: Math.round(h.score * 1000) / 1000, scope });
    }
    return out.slice(0, Math.max(0, limit));
  }

  /**
   * Appends checkpoints of a session's turns to that session's memory in one write. An item
   * whose key was already written (in the file or rotated out of it) is skipped, so a turn is
   * checkpointed once whoever trims it. Written atomically but without fsync: a checkpoint is
   * derived from messages the session store holds, and survives what they survive (a killed
   * process), without paying a disk flush on every turn.
   */
  async checkpoint(session: string, items: CheckpointItem[]): Promise<{ path: string; written: number }> {
    const file = path.join(this.sessionDir(session), 'MEMORY.md');
    const date = isoDate(this.now());
    const entries = items.map((i) => ({ key: i.key, date, text: i.text.endsWith(i.key) ? i.text : `${i.text} ${i.key}` }));
    return this.appendKeyed(file, entries, { session, sync: false });
  }

  /**
   * Appends entries whose text ends with a key, skipping keys the file or its archive files
   * hold. `session` names the session whose folder this is; `sync: false` skips the fsyncs.
   */
  async appendKeyed(
    file: string, items: (CheckpointItem & { date: string })[], options: { session?: string; sync?: boolean } = {},
  ): Promise<{ path: string; written: number }> {
    if (!items.length) return { path: file, written: 0 };
    const select = async (current: Current): Promise<MemoryEntry[]> => {
      const archived = await this.archivedKeys(file);
      const seen = new Set<string>();
      return items.filter((i) => {
        if (seen.has(i.key) || current.text.includes(i.key) || archived.has(i.key)) return false;
        seen.add(i.key);
        return true;
      }).map((i) => ({ date: i.date, text: normalizeText(i.text) }));
    };
    if (options.sync === false) {
      const appended = await this.mutex.run(file, () => this.appendInPlace(file, select));
      if (appended) return appended;
    }
    return this.update<{ written: number }>(file, async (current) => {
      const entries = await select(current);
      if (!entries.length) return { result: { written: 0 } };
      return { ...appendChecked(current, 'archive', entries), result: { written: entries.length } };
    }, options.session, options.sync);
  }

  /**
   * The fast path of a checkpoint: its lines added by one O_APPEND write at the end of the
   * file, when the cached view of the file is current, the file ends in its Archive zone, and
   * the write keeps it within `rotateBytes`. Undefined when any of that does not hold; the
   * caller then rewrites the file under its lock. Skipping the lock file is safe here because
   * a session's memory is written only by runs on that session, which the session store
   * serializes across processes; a killed process leaves the line written or not.
   */
  private async appendInPlace(file: string, select: (current: Current) => Promise<MemoryEntry[]>): Promise<{ path: string; written: number } | undefined> {
    const current = await this.cache.load(file);
    const { parsed, text } = current;
    const last = parsed.sections.at(-1);
    if (!current.exists || current.racy || last?.zone !== 'archive' || last.end !== parsed.lines.length
      || parsed.eol !== '\n' || !text.endsWith('\n') || text.lastIndexOf('<!--') > text.lastIndexOf('-->')) return undefined;
    const entries = await select(current);
    if (!entries.length) return { path: file, written: 0 };
    const add = `${entries.map(formatEntry).join('\n')}\n`;
    if (Buffer.byteLength(text) + Buffer.byteLength(add) > this.rotateBytes) return undefined;
    const handle = await open(file, 'a');
    try {
      await handle.write(add);
      await this.cache.wrote(file, text + add, extendArchive(parsed, add), await handle.stat());
    } finally {
      await handle.close();
    }
    return { path: file, written: entries.length };
  }

  /**
   * Rewrites the agent's file without the given entries (matched by date and text), under
   * its lock; entries no longer there are ignored. Returns how many were removed.
   */
  async removeFromAgent(agent: string, remove: (entry: MemoryEntry) => boolean): Promise<number> {
    const file = await this.pathFor(agent);
    return (await this.update<{ removed: number }>(file, (current) => {
      const gone = current.parsed.archive.filter(remove);
      if (!gone.length) return { result: { removed: 0 } };
      return { text: removeEntries(current.parsed, gone), result: { removed: gone.length } };
    })).removed;
  }

  /** Deletes a session's memory (its checkpoints and session-scope entries) at once. */
  async forgetSession(session: string): Promise<void> {
    const dir = this.sessionDir(session);
    await this.mutex.run(path.join(dir, 'MEMORY.md'), () => rm(dir, { recursive: true, force: true }));
    this.cache.forget(path.join(dir, 'MEMORY.md'));
  }

  private targetsOf(sources: MemorySources): ScopeTarget[] {
    return [
      { scope: 'agent' },
      ...(sources.user !== undefined ? [{ scope: 'user' as const, user: sources.user }] : []),
      ...(sources.session !== undefined ? [{ scope: 'session' as const, session: sources.session }] : []),
    ];
  }

  /** Checkpoint keys in the rotated archive files of a memory file. */
  private async archivedKeys(file: string): Promise<Set<string>> {
    const keys = new Set<string>();
    for (const archive of await archiveFiles(file)) {
      const loaded = await this.cache.load(archive);
      const set = memoize(loaded, 'keys', () => new Set(loaded.parsed.archive.map((e) => checkpointKeyOf(e.text)).filter((k) => k !== undefined)));
      for (const k of set) keys.add(k);
    }
    return keys;
  }

  /**
   * Read-modify-write of a memory file, under the in-process mutex and the lock file, so
   * nothing another writer saved in between is lost. `change` returns the new text (or none to
   * leave the file alone) and a result. Past `rotateBytes`, the oldest Archive entries move to
   * a dated archive file first. A session's folder gets a `session.json` naming its session
   * when it is created, so the sweep can tell whose it is. `sync: false` skips the fsyncs.
   */
  private async update<R extends object>(file: string, change: Change<R>, session?: string, sync = true): Promise<R & { path: string }> {
    return this.mutex.run(file, async () => {
      try {
        const created = await mkdir(path.dirname(file), { recursive: true });
        if (created && session !== undefined) await writeFile(path.join(path.dirname(file), 'session.json'), `${JSON.stringify({ session })}\n`);
        return await withFileLock(`${file}.lock`, { timeoutMs: this.lockTimeoutMs, staleMs: this.staleLockMs }, async () => {
          await removeLeftovers(file);
          // Under the lock the cache is as good as a read: it re-reads whatever changed.
          const { text, parsed: before } = await this.cache.load(file);
          const out = await change({ path: file, text, parsed: before });
          if (out.text !== undefined && out.text !== text) {
            let next = out.text;
            let parsed = out.parsed ?? parseMemory(next);
            const rotation = planRotation(next, parsed, this.rotateBytes);
            if (rotation) {
              await writeArchiveFiles(file, rotation.moved, isoDate(this.now()), this.rotateBytes, sync);
              next = rotation.text;
              parsed = parseMemory(next);
            }
            await writeFileAtomic(file, next, { sync });
            await this.cache.wrote(file, next, parsed);
          }
          return { ...out.result, path: file };
        });
      } catch (error) {
        throw ioError(file, 'write', error);
      }
    });
  }
}
