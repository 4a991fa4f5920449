import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { ApprovalAsk, SandboxAction, SuspendedCall } from '@oryxos/contracts';
import { OryxError, errorMessage, isOryxError, type ChatRequest, type ChatResponse, type Message } from '@oryxos/provider-spec';
import type { Prompt, PromptReport, RunContext, RunResult, Stop, Tool, ToolResult } from './types.ts';
import type { ToolCall } from '@oryxos/provider-spec';

/**
 * Stages order taps on one hook, whatever order plugins were set up in: guards (sandbox,
 * approvals) run first, rewriting taps in the middle, observers (audit, tracing) last.
 */
export const STAGE = Object.freeze({ GUARD: -100, EARLY: -50, DEFAULT: 0, LATE: 50, OBSERVE: 100 });

/** One model call attempt, as `beforeLLM`, `afterLLM` and `llmError` see it. */
export interface LLMCallInfo {
  run: RunContext;
  request: ChatRequest;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  /** Since the attempt started (0 in `beforeLLM`). */
  latencyMs: number;
  /** What the prompt held and what was cut to fit (sections and sizes), for the audit. */
  prompt?: PromptReport;
}

/** One tool call, as `beforeTool` sees it. */
export interface ToolCallInfo {
  run: RunContext;
  call: ToolCall;
  /** Undefined for an unknown tool (`beforeTool` is not called for those; `afterTool` is). */
  tool?: Tool;
  /** The call's declared sandbox actions that the sandbox answered `ask` for: they need a person. */
  asks: ApprovalAsk[];
  /** Actions a tap approved for this call (a person's approval): the sandbox allows them where they would ask. */
  approved: SandboxAction[];
  /** Headers the call sends with any HTTP request it makes (a tracing plugin's `traceparent`). */
  headers: Record<string, string>;
}

/** One finished tool call, as `afterTool` sees it (failures, denials and interrupted calls too). */
export interface ToolResultInfo extends ToolCallInfo {
  status: 'ok' | 'error' | 'denied';
  durationMs: number;
}

/**
 * What a `beforeTool` tap returns to suspend the run at this call: it gets no result, the run
 * stops with stop reason `suspended` after the calls already running, and
 * `runs.continue(runId)` runs the call again once what it waits for is there. `by` is the
 * suspending plugin's name.
 */
export interface Suspend { suspend: Omit<SuspendedCall, 'toolCallId' | 'tool'> }

/** The run stops short of an answer: `max_iterations`, another budget limit, or a stop rule. */
export interface LimitInfo extends Stop {
  run: RunContext;
  /** The last response the model gave (it still asked for tools). */
  last?: ChatResponse;
}

/** Turns about to leave the prompt (window or token budget), oldest first. */
export interface TrimInfo {
  run: RunContext;
  reason: 'window' | 'budget';
  /** Each turn's messages; `firstSeq` is the stored position of its first message, when known. */
  turns: { firstSeq?: number; messages: Message[] }[];
}

/**
 * Every hook of the kernel, declared once. Taps are named after their plugin and ordered by
 * {@link STAGE}. Waterfall taps return the (possibly rewritten) value; bail taps return
 * `undefined` to pass.
 */
export function createHooks() {
  const hooks = {
    // a run
    /** A run starts (its record, a trace span); a tap that throws refuses the run before anything is written. */
    runStart: new AsyncSeriesHook<[RunContext]>(['run']),
    /** Add to or rewrite the step's prompt (memory, policy notes). Called before every model call. */
    prepareStep: new AsyncSeriesWaterfallHook<[Prompt, RunContext]>(['prompt', 'run']),
    /** A model call attempt starts; a tap may add `request.headers` (trace context). */
    beforeLLM: new AsyncSeriesHook<[LLMCallInfo]>(['info']),
    /** Sees every model response (audit, policy); may rewrite it. */
    afterLLM: new AsyncSeriesWaterfallHook<[ChatResponse, LLMCallInfo]>(['response', 'info']),
    /** Sees every failed model attempt, retried or final (audit). */
    llmError: new AsyncSeriesHook<[OryxError, LLMCallInfo & { willRetry: boolean }]>(['error', 'info']),
    /** A tap that returns a result replaces execution (a denial, a cached result); one that returns `{ suspend }` suspends the run. */
    beforeTool: new AsyncSeriesBailHook<[ToolCallInfo], ToolResult | Suspend | undefined>(['info']),
    /** Sees every tool result, errors, denials and interrupted calls included (audit, redaction). */
    afterTool: new AsyncSeriesWaterfallHook<[ToolResult, ToolResultInfo]>(['result', 'info']),
    /**
     * A limit, the budget or a stop rule ends the run: return the response to end with. With
     * no tap answering, the kernel makes one last model call without tools.
     */
    onLimit: new AsyncSeriesBailHook<[LimitInfo], ChatResponse | undefined>(['info']),
    /** Turns are about to leave the prompt: checkpoint them (memory). */
    trimContext: new AsyncSeriesHook<[TrimInfo]>(['info']),
    /** A run has ended, whatever its stop reason (its record, notifications, metrics). */
    afterRun: new AsyncSeriesHook<[RunResult, RunContext]>(['result', 'run']),
    // lifecycle
    /** After every plugin's setup: open databases, connect servers. */
    init: new AsyncSeriesHook<[]>([]),
    /** Shutdown; taps run in reverse setup order. */
    close: new AsyncSeriesHook<[]>([]),
  };
  for (const [name, hook] of Object.entries(hooks)) guardTaps(name, hook);
  return Object.freeze(hooks);
}

export type Hooks = ReturnType<typeof createHooks>;
export type HookName = keyof Hooks;

/** Re-raises anything a tap throws as an OryxError that names the plugin and the hook. */
function guardTaps(hookName: string, hook: { intercept(i: object): void }): void {
  hook.intercept({
    register(tap: { type: string; name: string; fn: (...args: unknown[]) => unknown }) {
      const fn = tap.fn;
      // An OryxError keeps its own code (it says what is wrong); anything else becomes
      // ORYX_E_HOOK_FAILED. Either way the message names the plugin and the hook.
      const wrap = (error: unknown): OryxError => {
        if (isOryxError(error) && error.data?.hook) return error;
        const message = `Plugin "${tap.name}" failed in hook "${hookName}": ${errorMessage(error)}`;
        const data = { ...(isOryxError(error) ? error.data : {}), plugin: tap.name, hook: hookName };
        if (isOryxError(error)) {
          return new OryxError(error.code, message, { cause: error, hint: error.hint, retryable: error.retryable, retryAfterMs: error.retryAfterMs, data });
        }
        return new OryxError('ORYX_E_HOOK_FAILED', message, { cause: error, hint: `Fix or disable the plugin "${tap.name}".`, data });
      };
      if (tap.type === 'promise') {
        tap.fn = async (...args: unknown[]) => {
          try { return await fn(...args); } catch (error) { throw wrap(error); }
        };
      } else if (tap.type === 'sync') {
        tap.fn = (...args: unknown[]) => {
          try { return fn(...args); } catch (error) { throw wrap(error); }
        };
      }
      return tap;
    },
  });
}
