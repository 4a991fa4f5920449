/**
 * @oryxos/plugin-memory: long-term memory in MEMORY.md with Core and Archive zones, scoped per
 * agent, user or session; checkpoints of trimmed turns stay with their session.
 *
 * This entry holds the plugin and what its options and tools need; the store and the rest of
 * the library (parsing, search, rotation, locks) are `@oryxos/plugin-memory/store`, loaded by
 * the plugin on first use.
 *
 * @example
 * import memory from '@oryxos/plugin-memory';
 * export default defineConfig({ plugins: [memory()] });
 */
export { default, DEFAULT_OPTIONS, SWEEP_INTERVAL_MS, type MemoryOptions } from './plugin.ts';
export { LazyMemoryStore } from './lazy-store.ts';
export { DEFAULT_ROTATE_BYTES } from './paths.ts';
export type {
  FileMemoryStore, FileMemoryStoreOptions, SaveOutcome, CheckpointItem, ScopedZones, RecallHit, MemorySource,
} from './file-store.ts';
export {
  MEMORY_SCOPES, OPERATOR_USER, scopeOf, runMemory, fileSafeName, checkId,
  type MemoryScope, type ScopeTarget, type MemorySources, type RunMemory,
} from './scope.ts';
export { saveMemoryTool, recallMemoryTool, type RunMemoryOf, type MemoryToolStore, saveMemoryArgs, recallMemoryArgs, toolSchema, SAVE_MAX_CHARS, RECALL_MAX_LIMIT } from './tools.ts';
export { ERROR_CODES, type MemoryErrorCode } from './errors.ts';
