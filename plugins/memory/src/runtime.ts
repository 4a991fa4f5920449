// What the memory plugin loads on first use (plugin.ts): the prompt section, checkpoints of
// trimmed turns, the move of old checkpoints to their sessions, and the sweep of deleted
// sessions' memories. The store's own code comes with the `memory` service (lazy-store.ts).
export { checkpointItems } from './checkpoint.ts';
export { migrateCheckpoints } from './migrate.ts';
export { memoryPrompt } from './prompt-section.ts';
export { sweepIfDue } from './sweep.ts';
