/**
 * @oryxos/plugin-memory/store: the MEMORY.md store and its parts, for programs that use the
 * memory files without the plugin (or test them). The plugin's `memory` service is a
 * {@link FileMemoryStore} loaded on first use.
 *
 * @example
 * import { FileMemoryStore } from '@oryxos/plugin-memory/store';
 * const store = new FileMemoryStore({ workspaceDir: '/project/.oryxos' });
 */
export {
  FileMemoryStore, isoDate,
  type FileMemoryStoreOptions, type SaveOutcome, type CheckpointItem, type ScopedZones, type RecallHit, type MemorySource,
} from './file-store.ts';
export { DEFAULT_ROTATE_BYTES } from './paths.ts';
export { ParsedFileCache, Lru, type LoadedFile } from './cache.ts';
export { ARCHIVE_DIR, archiveFiles, planRotation, type Rotation } from './rotate.ts';
export { migrateCheckpoints, MIGRATED_FILE, type MigrationOutcome } from './migrate.ts';
export { sweepSessions, sweepIfDue } from './sweep.ts';
export { memoryPrompt } from './prompt-section.ts';
export {
  parseMemory, formatEntry, insertEntries, removeEntries, extendArchive, normalizeText, renderedChars, MEMORY_TEMPLATE,
  type ParsedMemory, type ParsedEntry, type Zone,
} from './format.ts';
export { memorySection, type MemorySection } from './inject.ts';
export { checkpointItems, checkpointKey, checkpointKeyOf, checkpointSession, CHECKPOINT_ASK_CHARS, CHECKPOINT_ANSWER_CHARS } from './checkpoint.ts';
export { tokenize, rank, SearchIndex, searchIndexes, type Hit, type SourceHit } from './search.ts';
export { withFileLock, KeyedMutex, type FileLockOptions } from './lock.ts';
export { writeFileAtomic } from './atomic.ts';
