/**
 * The terminal channel of OryxOS: `oryx init`, `oryx run`, `oryx chat`, `oryx agents` and
 * `oryx tools`, as oclif commands on the kernel's AgentService. Other plugins add their own
 * commands (sessions, audit, memory, mcp, web) from their packages.
 */
export { scaffold } from './scaffold.ts';
export { ERROR_CODES } from './errors.ts';
