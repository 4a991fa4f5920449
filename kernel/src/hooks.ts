/// <reference path="./tapable-lib.d.ts" />
import type * as Tapable from 'tapable';
// The three hook classes the kernel uses, each from its own file: tapable's index would bring all
// fourteen (~22 KB more for every start to compile). Typed as tapable's own (tapable-lib.d.ts).
import AsyncSeriesBailHookFile from 'tapable/lib/AsyncSeriesBailHook.js';
import AsyncSeriesHookFile from 'tapable/lib/AsyncSeriesHook.js';
import AsyncSeriesWaterfallHookFile from 'tapable/lib/AsyncSeriesWaterfallHook.js';
import { OryxError, errorMessage, isOryxError } from './errors.ts';
import type {
  ApprovalAsk, BudgetLimit, ChatRequest, ChatResponse, Prompt, PromptReport, RunContext, RunResult, Tool, ToolCall, ToolResult, Message,
} from './types.ts';

const AsyncSeriesBailHook: typeof Tapable.AsyncSeriesBailHook = AsyncSeriesBailHookFile;
const AsyncSeriesHook: typeof Tapable.AsyncSeriesHook = AsyncSeriesHookFile;
const AsyncSeriesWaterfallHook: typeof Tapable.AsyncSeriesWaterfallHook = AsyncSeriesWaterfallHookFile;

/**
 * Stages order taps on one hook, whatever order plugins were set up in: guards (sandbox,
 * approval) run first, rewriting taps in the middle, observers (audit) last.
 */
export const STAGE = Object.freeze({ GUARD: -100, EARLY: -50, DEFAULT: 0, LATE: 50, OBSERVE: 100 });

/** One model call attempt, as `afterLLM` and `llmError` see it. */
export interface LLMCallInfo {
  run: RunContext;
  request: ChatRequest;
  /** 1 for the first try, 2 for the first retry… */
  attempt: number;
  latencyMs: number;
  /** What the prompt held and what was cut to fit (sections and sizes), for the audit. */
  prompt?: PromptReport;
}

/** One tool call, as `beforeTool` sees it. */
export interface ToolCallInfo {
  run: RunContext;
  call: ToolCall;
  /** Undefined for an unknown tool. */
  tool?: Tool;
}

/** One finished tool call, as `afterTool` sees it (failures and denials too). */
export interface ToolResultInfo extends ToolCallInfo {
  status: 'ok' | 'error' | 'denied';
  durationMs: number;
}

/** A tool call that needs a person's approval, as `onApproval` sees it: what asks, and why. */
export interface ApprovalInfo {
  run: RunContext;
  call: ToolCall;
  tool: Tool;
  asks: ApprovalAsk[];
}

/**
 * A decision made in this process: `approve` this call, `always` approve this tool for the rest
 * of the run, or `deny` it (the model gets the reason). `by` is who decided, for the audit.
 */
export interface ApprovalAnswer {
  decision: 'approve' | 'always' | 'deny';
  by: string;
  reason?: string;
}

/** The run stops short of an answer: `max_iterations`, another budget limit, or a loop. */
export interface LimitInfo {
  run: RunContext;
  /** The last response the model gave (it still asked for tools). */
  last: ChatResponse;
  reason: 'limit' | 'budget' | 'loop';
  /** One line saying why (`stopped at max_iterations (10 model calls)`). */
  notice: string;
  /** The limit reached, for `limit` and `budget`. */
  limit?: { name: BudgetLimit; value: number };
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
    // ReAct phases
    /** Add or rewrite prompt parts (memory, skills, clock). Rebuilt every iteration. */
    beforePrompt: new AsyncSeriesWaterfallHook<[Prompt, RunContext]>(['prompt', 'run']),
    /** Sees every model response (audit, policy); may rewrite it. */
    afterLLM: new AsyncSeriesWaterfallHook<[ChatResponse, LLMCallInfo]>(['response', 'info']),
    /** Sees every failed model attempt, retried or final (audit). */
    llmError: new AsyncSeriesHook<[OryxError, LLMCallInfo & { willRetry: boolean }]>(['error', 'info']),
    /** A tap that returns a result replaces execution (denial, approval refused, cache). */
    beforeTool: new AsyncSeriesBailHook<[ToolCallInfo], ToolResult | undefined>(['info']),
    /**
     * A tool call needs a person's approval: a tap that answers decides it in this process (the
     * CLI's terminal prompt); with no answer the approval is stored and the run pauses.
     */
    onApproval: new AsyncSeriesBailHook<[ApprovalInfo], ApprovalAnswer | undefined>(['info']),
    /** Sees every tool result, errors and denials included (audit, redaction). */
    afterTool: new AsyncSeriesWaterfallHook<[ToolResult, ToolResultInfo]>(['result', 'info']),
    /**
     * A limit, the budget or the loop guard ends the run: return the response to end with. With
     * no tap answering, the kernel makes one last model call without tools.
     */
    onLimit: new AsyncSeriesBailHook<[LimitInfo], ChatResponse | undefined>(['info']),
    /** Turns are about to leave the prompt: checkpoint them (memory). */
    trimContext: new AsyncSeriesHook<[TrimInfo]>(['info']),
    // lifecycle
    /** After every plugin's setup: open databases, connect servers. */
    init: new AsyncSeriesHook<[]>([]),
    /** A run has ended, whatever its stop reason (notifications, metrics). */
    afterRun: new AsyncSeriesHook<[RunResult, RunContext]>(['result', 'run']),
    /** Shutdown; taps run in reverse setup order. */
    close: new AsyncSeriesHook<[]>([]),
  };
  for (const [name, hook] of Object.entries(hooks)) guardTaps(name, hook);
  return Object.freeze(hooks);
}

export type Hooks = ReturnType<typeof createHooks>;
export type HookName = keyof Hooks;

/**
 * True when the hook has taps. The hot path skips calling a hook without any: the call would
 * only wrap its value in a promise (the one interceptor, {@link guardTaps}, acts on registration).
 */
export function tapped(hook: { taps: readonly unknown[] }): boolean {
  return hook.taps.length > 0;
}

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
