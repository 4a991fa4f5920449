import type { JsonSchema } from '@oryxos/provider-spec';
import type { Authorizer } from './auth/oauth.ts';

/** One tool call in flight on a server, for the hooks to know where a request belongs. */
export interface CallInfo {
  server: string;
  /** The server's own name of the tool. */
  tool: string;
  /** The kernel's id of the call, for a call an agent made. */
  toolCallId?: string;
  sessionId?: string;
  agent?: string;
}

/** A `notifications/progress` of a call: `progress` grows; `total` when the server knows it. */
export interface McpProgress { progress: number; total?: number; message?: string }

/** What a server asks the person (MCP `elicitation/create`, form mode). */
export interface McpElicitRequest {
  message: string;
  /** A flat object schema of what to fill in (strings, numbers, booleans, enums), with defaults. */
  requestedSchema?: JsonSchema;
  mode?: 'form' | 'url';
  [key: string]: unknown;
}

/** The person's answer: `accept` with the content, `decline` (said no) or `cancel` (dismissed, or nobody there). */
export interface McpElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Answers an elicitation request. Return `undefined` when nobody can answer (an unattended
 * run): the server gets `cancel`. Omitted fields of an accepted form are filled from the
 * schema's defaults.
 */
export type ElicitHandler = (server: string, request: McpElicitRequest, context: { calls: CallInfo[] }) => McpElicitResult | undefined | Promise<McpElicitResult | undefined>;

/** Sees each progress notification of a call. */
export type ProgressHandler = (server: string, call: CallInfo, progress: McpProgress) => void;

/**
 * What the host (a door: the CLI, the console) plugs into the MCP client at run time, set on
 * the `mcp` service. Each is optional; without `onElicit` OryxOS does not declare the
 * elicitation capability, and without `authorizer` a sign-in that needs a person is an error
 * saying `oryx mcp login NAME`.
 */
export interface ClientHooks {
  onElicit?: ElicitHandler;
  onProgress?: ProgressHandler;
  authorizer?: Authorizer;
}
