/**
 * The memory plugin's error codes with how to fix each. `test/readme.test.ts` checks that
 * the README lists exactly these codes.
 *
 * @example
 * import { ERROR_CODES } from '@oryxos/plugin-memory';
 * console.log(ERROR_CODES.ORYX_E_MEMORY_CORE_FULL);
 */
export const ERROR_CODES = {
  ORYX_E_MEMORY_OPTIONS_INVALID: 'Fix the memory() option the message names in oryx.config.ts (see the options table in the README).',
  ORYX_E_MEMORY_AGENT_INVALID: 'Use an agent name made of letters, digits, _ . and - (the name of its folder under .oryxos/agents).',
  ORYX_E_MEMORY_TEXT_INVALID: 'Pass a non-empty text to save.',
  ORYX_E_MEMORY_ZONE_INVALID: "Use zone 'core' or 'archive'.",
  ORYX_E_MEMORY_SCOPE_INVALID: 'Fix memory: in the AGENT.md the message names: memory: { scope: agent | user | session }.',
  ORYX_E_MEMORY_USER_INVALID: 'Pass a user or session id of 1 to 256 characters without control characters.',
  ORYX_E_MEMORY_CORE_FULL: 'Save the fact to the Archive instead, or shorten the Core zone of MEMORY.md by hand (or raise coreMaxChars).',
  ORYX_E_MEMORY_FILE_INVALID: 'MEMORY.md has markup that would hide a new entry (such as an unclosed <!-- comment): fix the file by hand.',
  ORYX_E_MEMORY_LOCKED: 'Another writer held MEMORY.md.lock too long; retry, or delete the lock file if no oryx process is running.',
  ORYX_E_MEMORY_IO: 'MEMORY.md or its folder could not be read or written: check that the path exists and is readable and writable.',
} as const;

export type MemoryErrorCode = keyof typeof ERROR_CODES;
