/**
 * The error codes of the MCP plugin, each with how to fix it. `test/error-codes.test.ts`
 * checks this table against the README, so the two never drift.
 *
 * @example
 * import { ERROR_CODES } from '@oryxos/plugin-mcp';
 * console.log(ERROR_CODES.ORYX_E_MCP_ENV_MISSING);
 */
export const ERROR_CODES = {
  ORYX_E_MCP_OPTIONS_INVALID: 'Fix the mcp() option the message names in oryx.config.ts.',
  ORYX_E_MCP_CONFIG_INVALID: 'Fix the file and field the message names in mcp_servers.yaml (YAML with a top-level servers: map).',
  ORYX_E_MCP_ENV_MISSING: 'Set the environment variable the message names, or give a default in the file: ${VAR:-default}.',
  ORYX_E_MCP_SERVER_UNKNOWN: 'Use a server name that `oryx mcp list` shows, or declare it in mcp_servers.yaml.',
  ORYX_E_MCP_SERVER_DISABLED: 'Remove `enabled: false` from the server in mcp_servers.yaml (or the mcp() options).',
  ORYX_E_MCP_UNAVAILABLE: 'The server could not be started or reached: read the reason and <workspace>/logs/mcp-<server>.log, then fix its command or url.',
  ORYX_E_MCP_CONNECT_TIMEOUT: 'The server did not finish the MCP handshake in time: raise connectTimeoutMs or check its log.',
  ORYX_E_MCP_TOOL_UNKNOWN: 'Use a tool that `oryx mcp tools <server>` lists (the server\'s `tools:` allow-list may hide it).',
  ORYX_E_MCP_INPUT_UNSUPPORTED: 'A VS Code ${input:id} prompt cannot be shown when OryxOS starts a server: write ${VAR} instead (oryx mcp import does) and set VAR.',
  ORYX_E_MCP_AUTH_REQUIRED: 'The server needs authorization and no stored sign-in works: run `oryx mcp login <server>` once; tokens are kept and refreshed.',
  ORYX_E_MCP_AUTH_FAILED: 'The sign-in did not complete: read the reason, run `oryx mcp login <server>` again, or check the server\'s oauth: settings (clientId, scopes, callbackPort).',
  ORYX_E_MCP_AUTH_UNSUPPORTED: 'Only remote servers without a fixed Authorization header sign in with OAuth: give a stdio server its credentials in env:.',
  ORYX_E_MCP_FEATURE_UNSUPPORTED: 'The server did not declare that capability (resources or prompts): see what it offers with `oryx mcp tools <server>`.',
  ORYX_E_MCP_REQUEST_FAILED: 'The server refused the request (an unknown resource URI or prompt): check it against `oryx mcp resources|prompts <server>`.',
  ORYX_E_MCP_SERVER_EXISTS: 'A server of that name is already declared there: pick another name, or pass --force to replace it.',
} as const;

export type McpErrorCode = keyof typeof ERROR_CODES;
