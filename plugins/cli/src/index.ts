/**
 * The terminal channel of OryxOS: `oryx init`, `oryx run`, `oryx chat`, `oryx agents` and
 * `oryx tools`, as oclif commands on the kernel's AgentService, and what every package's
 * commands share: the `--json` shapes and short session ids. Other plugins add their own
 * commands (sessions, audit, memory, mcp, web) from their packages.
 */
export { scaffold } from './scaffold.ts';
export { ERROR_CODES } from './errors.ts';
export { listJson, camelKeys, camelCase, type ListJson, type CamelKeys } from './json.ts';
export { resolveSessionId, MIN_PREFIX } from './session-id.ts';
export { listAgents, type AgentJson } from './agent-list.ts';
