import { setTimeout as sleep } from 'node:timers/promises';
import { approvalRef } from './approval.ts';
import { BudgetExceeded, type RunBudget } from './budget.ts';
import { OryxError, errorMessage, toOryxError } from './errors.ts';
import { ToolExecutor, type CallOutcome } from './executor.ts';
import { tapped } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { LoopGuard } from './loop-guard.ts';
import { buildPrompt, historyChars, messageSize, TokenEstimator, toolSpec } from './prompt.ts';
import { ModelRequest, runAborted } from './run-state.ts';
import { runBatch } from './tool-batch.ts';
import type {
  Approval, AssistantMessage, BudgetLimit, ChatRequest, ChatResponse, Message, PromptReport, Provider, RunContext, RunEvent, RunResult,
  StopReason, Tool, ToolCall, ToolResult, Usage,
} from './types.ts';

export interface LoopInput {
  kernel: Kernel;
  run: RunContext;
  provider: Provider;
  /** Prior history plus the new user message; the loop appends to it. */
  history: Message[];
  tools: Tool[];
  /** The run's budget (shared with its sub-agents); `run.signal` must include its deadline. */
  budget: RunBudget;
  /** Persists messages as they are produced, before the loop goes on. */
  commit(messages: Message[]): Promise<void>;
  seqOf?(m: Message): number | undefined;
  stream?: boolean;
  onEvent?(event: RunEvent): void;
  /**
   * A resumed run (`AgentService.resume`): the stored response whose calls have no result yet.
   * They run first (`results` gives some of them their result instead: a denial), then the loop
   * goes on as usual.
   */
  resume?: { response: AssistantMessage; calls: ToolCall[]; results: Map<string, ToolResult> };
}

export type LoopResult = Omit<RunResult, 'sessionId' | 'agent'>;

/** Why the loop stops short of an answer: a limit of the budget, or the loop guard. */
type ShortStop = { reason: 'limit' | 'budget' | 'loop'; notice: string; limit?: BudgetLimit; value?: number };

/**
 * The ReAct loop: build the prompt, call the model, stop on an answer without tool calls,
 * otherwise run the calls, record the results and go round again, until the budget or the
 * loop guard says stop; then one last model call without tools gives the answer.
 * One `await` after another; every message is committed as it is produced.
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const { kernel, run, provider, history, budget } = input;
  // Events are made only when someone listens: `emit?.(…)` builds no object otherwise.
  const emit = input.onEvent;
  const executor = new ToolExecutor(kernel);
  const estimator = new TokenEstimator();
  const trimmed = new WeakSet<Message>();
  const guard = new LoopGuard(run.agent.settings.loop_detection);
  const toolMap = new Map(input.tools.map((t) => [t.name, t]));
  const specs = input.tools.map(toolSpec);
  /** The history's size in the prompt, kept as messages are committed. */
  let chars = historyChars(history);
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let last: ChatResponse | undefined = input.resume && { message: input.resume.response, usage: { inputTokens: 0, outputTokens: 0 }, finishReason: 'tool_calls', model: run.model };
  /** Set once a call waits for a person: the run stops after this response's calls. */
  let waiting: Approval | undefined;

  const end = (stopReason: StopReason, answer: string, why?: { error?: OryxError; stop?: Omit<ShortStop, 'reason'> }): LoopResult => ({
    runId: run.runId, answer, stopReason, iterations: run.iteration, usage, budget: budget.used(),
    ...(stopReason === 'approval' && waiting ? { approval: approvalRef(waiting), notice: `waiting for approval ${waiting.id} (${waiting.tool})` } : {}),
    ...(why?.stop ? { notice: why.stop.notice, ...(why.stop.limit ? { limit: { name: why.stop.limit, value: why.stop.value! } } : {}) } : {}),
    ...(why?.error ? { error: { code: why.error.code, message: why.error.message, ...(why.error.hint ? { hint: why.error.hint } : {}) } } : {}),
  });
  const aborted = (error?: OryxError) => (budget.timedOut
    ? end('budget', '', { stop: budget.timeout })
    : end('aborted', '', { ...(error ? { error } : {}), stop: { notice: 'aborted' } }));

  /** One model call on the prompt rebuilt from the history; `note` ends it and takes the tools away. */
  const ask = async (note?: string): Promise<ChatResponse> => {
    run.iteration++;
    emit?.({ type: 'iteration', iteration: run.iteration });
    const building = buildPrompt({
      hooks: kernel.hooks, run, history, tools: note ? [] : specs, estimator, seqOf: input.seqOf, trimmed, historyChars: chars,
    });
    const { messages, prompt, chars: promptSize } = building instanceof Promise ? await building : building;
    emit?.({ type: 'prompt', report: prompt.report });
    if (note) messages.push({ role: 'system', content: note });
    const request: ChatRequest = new ModelRequest(run, messages, prompt.tools);
    const response = await callModel(kernel, provider, request, run, { stream: input.stream ?? false, emit: emit ?? noEvents, budget, report: prompt.report });
    usage.inputTokens += response.usage.inputTokens;
    usage.outputTokens += response.usage.outputTokens;
    budget.addUsage(response.usage);
    estimator.calibrate(promptSize, response.usage.inputTokens);
    return response;
  };

  const commit = (message: Message): Promise<void> => {
    history.push(message);
    chars += messageSize(message);
    return input.commit([message]);
  };

  /**
   * A limit, the budget or the loop guard ends the run: an `onLimit` tap may give the answer;
   * by default one last call without tools asks the model for what it has (not when the time
   * is up). The answer is committed like any assistant message.
   */
  const stopShort = async (stop: ShortStop): Promise<LoopResult> => {
    emit?.({ type: 'stopping', reason: stop.reason, notice: stop.notice });
    let final = await kernel.hooks.onLimit.promise({ run, last: last!, reason: stop.reason, notice: stop.notice, ...(stop.limit ? { limit: { name: stop.limit, value: stop.value! } } : {}) });
    if (!final && !runAborted(run)) {
      final = await ask(finalNote(stop)).catch((error) => {
        kernel.log.warn(`the final answer call after "${stop.notice}" failed: ${errorMessage(error)}`);
        return undefined;
      });
    }
    if (!final) return end(stop.reason, '', { stop });
    const message: AssistantMessage = { role: 'assistant', content: final.message.content };
    await commit(message);
    emit?.({ type: 'assistant', message });
    return end(stop.reason, message.content, { stop });
  };

  /**
   * Runs one response's calls (concurrently where allowed) and commits the results in call
   * order. A call that waits for a person gets no result, and the calls after it do not run
   * (a resumed run runs them); calls already running alongside it finish and are committed.
   */
  const runTools = async (calls: ToolCall[], given?: Map<string, ToolResult>): Promise<ShortStop | undefined> => {
    stepStop = undefined;
    held = false;
    const perStep = run.agent.settings.max_tool_calls_per_step;
    instead = calls.map((call, index): ToolResult | undefined => {
      if (given?.has(call.id)) return given.get(call.id);
      if (index >= perStep) return undefined; // the executor answers these without running them
      if (stepStop) return notRun(stepStop);
      const over = budget.takeToolCall();
      if (over) {
        stepStop = over;
        return notRun(stepStop);
      }
      const verdict = guard.before(call);
      if (verdict.action === 'stop') { stepStop = { reason: 'loop', notice: verdict.notice }; return notRun(stepStop); }
      return verdict.action === 'warn' ? { content: `Not run. ${verdict.message}`, isError: true } : undefined;
    });
    if (calls.length === 1) {
      // One call (the usual response): nothing to overlap or order, so no batch.
      emit?.({ type: 'tool_call', call: calls[0]! });
      await finishCall(calls[0]!, await executor.execute(calls[0]!, run, toolMap, 0, instead[0]), 0);
    } else {
      await runBatch(calls, batching, startCall, finishCall);
    }
    return stepStop;
  };
  // What runTools keeps for the response whose calls run: the results the kernel gives instead
  // of running a call, whether a call waits for a person, and why the run stops after them.
  let instead: (ToolResult | undefined)[] = [];
  let held = false;
  let stepStop: ShortStop | undefined;
  const batching = {
    parallel: run.agent.settings.parallel_tools,
    max: run.agent.settings.max_parallel_tools,
    alone: (call: ToolCall) => toolMap.get(call.name)?.parallel === false,
  };
  const startCall = async (call: ToolCall, index: number): Promise<CallOutcome> => {
    if (held) return { waiting: true };
    emit?.({ type: 'tool_call', call });
    const outcome = await executor.execute(call, run, toolMap, index, instead[index]);
    if ('waiting' in outcome) held = true;
    return outcome;
  };
  const finishCall = async (call: ToolCall, outcome: CallOutcome, index: number): Promise<void> => {
    if ('waiting' in outcome) {
      if (outcome.approval) {
        waiting = outcome.approval;
        const ref = approvalRef(waiting);
        emit?.({ type: 'approval_required', approval: { ...ref, args: waiting.args, reasons: waiting.asks.map((a) => a.reason) } });
      }
      return;
    }
    let { result } = outcome;
    const { message } = outcome;
    const verdict = instead[index] ? undefined : guard.after(call, result);
    if (verdict?.action === 'warn') {
      result = { ...result, content: `${result.content}\n\n${verdict.message}` };
      message.content = result.content;
    }
    if (verdict?.action === 'stop') stepStop ??= { reason: 'loop', notice: verdict.notice };
    await commit(message);
    emit?.({ type: 'tool_result', call, result });
  };

  try {
    if (input.resume) {
      const stop = await runTools(input.resume.calls, input.resume.results);
      if (waiting) return end('approval', '');
      if (runAborted(run)) return aborted();
      if (stop) return await stopShort(stop);
    }
    do {
      if (runAborted(run)) return aborted();
      const limit = budget.check(run.iteration);
      if (limit) return limit.limit === 'max_duration_ms' ? aborted() : await stopShort(limit);
      last = await ask();
      const assistant = last.message;
      await commit(assistant);
      emit?.({ type: 'assistant', message: assistant });
      const calls = assistant.toolCalls ?? [];
      if (calls.length === 0) return end('final', assistant.content);
      const stop = await runTools(calls);
      if (waiting) return end('approval', '');
      if (runAborted(run)) return aborted();
      if (stop) return await stopShort(stop);
    } while (true);
  } catch (error) {
    if (error instanceof BudgetExceeded) return end('budget', '', { stop: error.stop });
    const e = toOryxError(error, 'ORYX_E_LLM_FAILED');
    if (runAborted(run) || e.code === 'ORYX_E_RUN_ABORTED') return aborted(e);
    return end('error', '', { error: e });
  }
}

/** The system note of the last, tool-less call. */
function finalNote(stop: ShortStop): string {
  const why = stop.reason === 'loop'
    ? `The run was stopped because it was going round in circles (${stop.notice.replace(/^stopped in a loop: /, '')}).`
    : `You have used your budget for this run (${stop.notice.replace(/^stopped at /, '')}).`;
  return `${why} No tools are available any more. Answer now with what you have, and say plainly what is unfinished.`;
}

const noEvents = (): void => {};
const NO_RETRY_POLICY: NonNullable<Provider['retry']> = {};

function notRun(stop: ShortStop): ToolResult {
  return { content: `Not run: the run ${stop.notice}.`, isError: true };
}

/** How {@link callModel} calls: streamed or not, where events go, the run's budget and the prompt's report. */
export interface CallOptions {
  stream: boolean;
  emit: (e: RunEvent) => void;
  /** Retries are taken from it; without one only the provider's `maxRetries` caps them. */
  budget?: RunBudget;
  /** What the prompt holds and what was cut, for `afterLLM` and `llmError` (the audit stores it). */
  report?: PromptReport;
}

/**
 * One model call with retries: errors marked `retryable` are tried again with exponential
 * backoff and full jitter (honouring `retry-after`), each attempt seen by `afterLLM` or
 * `llmError`. A streamed call that already emitted tokens is not retried.
 */
export async function callModel(
  kernel: Kernel, provider: Provider, request: ChatRequest, run: RunContext, options: CallOptions,
): Promise<ChatResponse> {
  const { stream, emit, budget, report } = options;
  const { maxRetries = 2, baseDelayMs = 500, maxDelayMs = 30_000 } = provider.retry ?? NO_RETRY_POLICY;
  // The latency is for the hooks' taps (the audit); without any, the clock is not read.
  const timed = tapped(kernel.hooks.afterLLM) || tapped(kernel.hooks.llmError);
  for (let attempt = 1; ; attempt++) {
    const started = timed ? performance.now() : 0;
    let emitted = false;
    let response: ChatResponse;
    try {
      if (stream && provider.stream) {
        response = undefined as unknown as ChatResponse;
        for await (const event of provider.stream(request)) {
          if (event.type === 'text' && event.delta) { emitted = true; emit({ type: 'token', text: event.delta }); }
          if (event.type === 'done') response = event.response;
        }
        if (!response) throw new OryxError('ORYX_E_LLM_FAILED', `${provider.name}: the stream ended without a final response`, { retryable: true });
      } else {
        response = await provider.chat(request);
      }
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const e = runAborted(run)
        ? new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: error })
        : toOryxError(error, 'ORYX_E_LLM_FAILED', { hint: `The call to provider "${provider.name}" (model ${request.model}) failed.` });
      const retryable = e.retryable && attempt <= maxRetries && !emitted && !runAborted(run);
      // Retries come out of the run's budget: a provider failing every time cannot retry forever.
      const over = retryable ? budget?.takeRetry() : undefined;
      const willRetry = retryable && !over;
      await kernel.hooks.llmError.promise(e, { run, request, attempt, latencyMs, willRetry, ...(report ? { prompt: report } : {}) });
      // Once tokens were shown a retry would show them twice, so it is not retried: say so.
      if (emitted && e.retryable && !runAborted(run)) throw cutOffError(e);
      if (over) throw new BudgetExceeded(over, { cause: e });
      if (!willRetry) throw e;
      const backoff = Math.random() * baseDelayMs * 2 ** (attempt - 1);
      const delayMs = Math.min(maxDelayMs, Math.max(e.retryAfterMs ?? 0, backoff));
      emit({ type: 'retry', attempt, delayMs: Math.round(delayMs), error: { code: e.code, message: e.message } });
      await sleep(delayMs, undefined, { signal: run.signal }).catch(() => {});
      if (runAborted(run)) throw new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted');
      continue;
    }
    if (!tapped(kernel.hooks.afterLLM)) return response;
    const latencyMs = Math.round(performance.now() - started);
    return kernel.hooks.afterLLM.promise(response, { run, request, attempt, latencyMs, ...(report ? { prompt: report } : {}) });
  }
}

/** A stream that failed after tokens were shown: not retried, and the hint says what is kept. */
function cutOffError(e: OryxError): OryxError {
  return new OryxError(e.code, `${e.message} (after part of the answer was shown)`, {
    cause: e, data: e.data,
    hint: 'The answer was cut off after it had started, so it was not retried (a retry would repeat what was shown). '
      + 'The session keeps every step committed before the cut; send the message again to continue.',
  });
}
