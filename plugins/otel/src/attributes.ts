/**
 * The attribute, span and event names this plugin writes. The `gen_ai.*`, `error.type` and
 * `http.*` names are OpenTelemetry's (semantic conventions v1.41.0, GenAI: Development); the
 * `oryx.*` ones are this plugin's, for what those conventions have no name for. The README
 * lists each one; a test keeps the two in step.
 */
import type { FinishReason, Usage } from '@oryxos/provider-spec';

/** The semantic-conventions release the names follow (the last with the GenAI conventions in it). */
export const SEMCONV_VERSION = '1.41.0';
export const SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}`;

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  agentName: 'gen_ai.agent.name',
  agentDescription: 'gen_ai.agent.description',
  conversation: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  maxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheRead: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreation: 'gen_ai.usage.cache_creation.input_tokens',
  reasoning: 'gen_ai.usage.reasoning.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolDescription: 'gen_ai.tool.description',
  toolType: 'gen_ai.tool.type',
  // Opt-in content (captureContent)
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolDefinitions: 'gen_ai.tool.definitions',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
} as const;

export const ERROR_TYPE = 'error.type';

export const ORYX = {
  runId: 'oryx.run.id',
  parentRunId: 'oryx.run.parent_id',
  door: 'oryx.run.door',
  continued: 'oryx.run.continued',
  stopReason: 'oryx.run.stop_reason',
  notice: 'oryx.run.notice',
  iterations: 'oryx.run.iterations',
  limitName: 'oryx.run.limit.name',
  limitValue: 'oryx.run.limit.value',
  budgetTokens: 'oryx.budget.tokens',
  budgetToolCalls: 'oryx.budget.tool_calls',
  budgetRetries: 'oryx.budget.retries',
  budgetMs: 'oryx.budget.ms',
  attempts: 'oryx.llm.attempts',
  rawFinishReason: 'oryx.llm.finish_reason.raw',
  toolsOffered: 'oryx.llm.tools_offered',
  promptTokens: 'oryx.prompt.estimated_tokens',
  promptCut: 'oryx.prompt.cut_sections',
  toolSource: 'oryx.tool.source',
  toolPlugin: 'oryx.tool.plugin',
  toolStatus: 'oryx.tool.status',
  sandboxDecision: 'oryx.sandbox.decision',
  deniedReason: 'oryx.tool.denied_reason',
  resultChars: 'oryx.tool.result_chars',
  fullChars: 'oryx.tool.full_chars',
  retryable: 'oryx.tool.retryable',
  interrupted: 'oryx.tool.interrupted',
  guardMs: 'oryx.tool.guard_ms',
  attempt: 'oryx.llm.attempt',
  errorMessage: 'oryx.error.message',
  approvalId: 'oryx.approval.id',
  approvalDecision: 'oryx.approval.decision',
  approvalBy: 'oryx.approval.decided_by',
  approvalReason: 'oryx.approval.reason',
  approvalWaitMs: 'oryx.approval.wait_ms',
  approvalAsks: 'oryx.approval.asks',
  linkKind: 'oryx.link.kind',
} as const;

/** Events on spans. */
export const EVENTS = {
  /** A model call attempt failed and is tried again (on the `chat` span). */
  retry: 'oryx.llm.retry',
  /** The call waits for a person: the run suspended at it (on the `execute_tool` span). */
  approvalRequested: 'oryx.approval.requested',
  /** A person's decision on a stored approval, read when the run continues. */
  approvalDecided: 'oryx.approval.decided',
  /** Actions that needed a person were allowed for this call (approved now, or earlier). */
  approvalGranted: 'oryx.approval.granted',
} as const;

/**
 * OryxOS's finish reason as the GenAI conventions word it (their output-message schema says
 * `tool_call`); `other` is the server's own word when it sent one.
 *
 * @example
 * finishReason('tool_calls') // 'tool_call'
 */
export function finishReason(reason: FinishReason, raw?: string): string {
  if (reason === 'tool_calls') return 'tool_call';
  if (reason === 'other') return raw ?? 'other';
  return reason;
}

/** The usage attributes of a call or a run; cache and reasoning figures only when the server gave them. */
export function usageAttributes(usage: Usage): Record<string, number> {
  const out: Record<string, number> = { [GEN_AI.inputTokens]: usage.inputTokens, [GEN_AI.outputTokens]: usage.outputTokens };
  if (usage.cacheReadTokens !== undefined) out[GEN_AI.cacheRead] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out[GEN_AI.cacheCreation] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) out[GEN_AI.reasoning] = usage.reasoningTokens;
  return out;
}

/** `agent__<name>`, the sub-agents plugin's tool for an agent (its naming rule, copied: no plugin imports another). */
export function agentToolName(agent: string): string {
  return `agent__${agent.replaceAll('.', '_')}`;
}
