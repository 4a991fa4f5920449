/**
 * @oryxos/plugin-memory: long-term memory in MEMORY.md with Core and Archive zones.
 *
 * @example
 * import memory from '@oryxos/plugin-memory';
 * export default defineConfig({ plugins: [memory()] });
 */
export { default, DEFAULT_OPTIONS, type MemoryOptions } from './plugin.ts';
export { FileMemoryStore, isoDate, type FileMemoryStoreOptions, type SaveOutcome, type CheckpointItem } from './file-store.ts';
export {
  parseMemory, formatEntry, insertEntries, normalizeText, renderedChars, MEMORY_TEMPLATE,
  type ParsedMemory, type ParsedEntry, type Zone,
} from './format.ts';
export { memorySection, type MemorySection } from './inject.ts';
export { checkpointItems, checkpointKey, CHECKPOINT_ASK_CHARS, CHECKPOINT_ANSWER_CHARS } from './checkpoint.ts';
export { tokenize, rank, type Hit } from './search.ts';
export { saveMemoryTool, recallMemoryTool, saveMemoryArgs, recallMemoryArgs, toolSchema, SAVE_MAX_CHARS, RECALL_MAX_LIMIT } from './tools.ts';
export { withFileLock, KeyedMutex, type FileLockOptions } from './lock.ts';
export { writeFileAtomic } from './atomic.ts';
export { ERROR_CODES, type MemoryErrorCode } from './errors.ts';
