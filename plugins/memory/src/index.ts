/**
 * @oryxos/plugin-memory: long-term memory in MEMORY.md with Core and Archive zones, scoped per
 * agent, user or session; checkpoints of trimmed turns stay with their session.
 *
 * @example
 * import memory from '@oryxos/plugin-memory';
 * export default defineConfig({ plugins: [memory()] });
 */
export { default, DEFAULT_OPTIONS, SWEEP_INTERVAL_MS, type MemoryOptions } from './plugin.ts';
export {
  FileMemoryStore, isoDate, DEFAULT_ROTATE_BYTES,
  type FileMemoryStoreOptions, type SaveOutcome, type CheckpointItem, type ScopedZones, type RecallHit, type MemorySource,
} from './file-store.ts';
export {
  MEMORY_SCOPES, OPERATOR_USER, scopeOf, runMemory, fileSafeName, checkId,
  type MemoryScope, type ScopeTarget, type MemorySources, type RunMemory,
} from './scope.ts';
export { ParsedFileCache, Lru, type LoadedFile } from './cache.ts';
export { ARCHIVE_DIR, archiveFiles, planRotation, type Rotation } from './rotate.ts';
export { migrateCheckpoints, MIGRATED_FILE, type MigrationOutcome } from './migrate.ts';
export { sweepSessions } from './sweep.ts';
export { memoryPrompt } from './prompt-section.ts';
export {
  parseMemory, formatEntry, insertEntries, removeEntries, extendArchive, normalizeText, renderedChars, MEMORY_TEMPLATE,
  type ParsedMemory, type ParsedEntry, type Zone,
} from './format.ts';
export { memorySection, type MemorySection } from './inject.ts';
export { checkpointItems, checkpointKey, checkpointKeyOf, checkpointSession, CHECKPOINT_ASK_CHARS, CHECKPOINT_ANSWER_CHARS } from './checkpoint.ts';
export { tokenize, rank, SearchIndex, searchIndexes, type Hit, type SourceHit } from './search.ts';
export { saveMemoryTool, recallMemoryTool, type RunMemoryOf, saveMemoryArgs, recallMemoryArgs, toolSchema, SAVE_MAX_CHARS, RECALL_MAX_LIMIT } from './tools.ts';
export { withFileLock, KeyedMutex, type FileLockOptions } from './lock.ts';
export { writeFileAtomic } from './atomic.ts';
export { ERROR_CODES, type MemoryErrorCode } from './errors.ts';
