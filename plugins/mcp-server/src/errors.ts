import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/package.test.ts` checks this
 * table against README.md so the two never drift.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as McpServeErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_MCPSERVE_OPTIONS: 'Fix the mcpServer() option the message names in oryx.config.ts, e.g. mcpServer({ agents: [\'assistant\'] }).',
  ORYX_E_MCPSERVE_NO_AGENTS: 'List at least one agent to expose: mcpServer({ agents: [\'assistant\'] }) (names from `oryx agents`).',
  ORYX_E_MCPSERVE_TOOL_NAME: 'Give each exposed agent a tool name of 1 to 128 letters, digits, _ - or ., different from the others: agents: { assistant: { name: \'ask_helper\' } }.',
  ORYX_E_MCPSERVE_UNKNOWN_AGENT: 'Create .oryxos/agents/<name>/AGENT.md, or list only agents `oryx agents` shows in mcpServer({ agents }).',
  ORYX_E_MCPSERVE_UNKNOWN_TOOL: 'List in mcpServer({ tools }) only tools the toolAgent\'s tools: allow-list lets it use (see `oryx tools`), or add the tool to that agent\'s tools:.',
  ORYX_E_MCPSERVE_UNKNOWN_PROMPT: 'List in mcpServer({ prompts }) only skills of the exposed agents (their skills/*.md), by name.',
  ORYX_E_MCPSERVE_PROMPT: 'Fix the skill\'s arguments: a list of { name, description?, required?, values?, resource? }; a resource: true argument takes the URI of one of this server\'s resources.',
  ORYX_E_MCPSERVE_NOT_ENABLED: 'Add mcpServer({ agents: [\'assistant\'] }) from @oryxos/plugin-mcp-server to `plugins` in oryx.config.ts.',
} as const;

export type McpServeErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function mcpServeError(code: McpServeErrorCode, message: string, options: { hint?: string; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
