/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts` checks
 * this table against README.md so the two never drift. The codes are the kernel's agent codes:
 * they name a problem of an AGENT.md.
 */
export const ERROR_CODES = {
  ORYX_E_AGENT_INVALID: 'Fix `agents:` in the AGENT.md the message names: a list of agent folder names (`oryx agents` lists them).',
  ORYX_E_AGENT_CYCLE: 'Remove one name from `agents:` in the file the message names: an agent cannot call itself, directly or through its sub-agents.',
} as const;
