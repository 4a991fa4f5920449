import type { SuspendedCall } from '@oryxos/contracts';
import { addUsage, errorMessage, toOryxError, type AssistantMessage, type ChatResponse, type Message, type OryxError, type Provider, type ToolCall, type Usage } from '@oryxos/provider-spec';
import { BudgetExceeded, type RunBudget, type StopWatch } from '@oryxos/stop-rules';
import { ToolExecutor, type CallOutcome } from './executor.ts';
import type { Kernel } from './kernel.ts';
import { callModel } from './model-call.ts';
import { TokenEstimator } from '@oryxos/history';
import { buildPrompt } from './prompt.ts';
import { runBatch } from './tool-batch.ts';
import type { RunContext, RunEvent, RunResult, Stop, Tool, ToolResult } from './types.ts';

/** What a run's loop works with. */
export interface LoopInput {
  kernel: Kernel;
  run: RunContext & { iteration: number };
  provider: Provider;
  /** The history the prompt starts from (the session's window, the new message last); the loop appends to it. */
  history: Message[];
  /** The tools of a step: listed again before every model call (a server may add some mid-run). */
  tools(): Promise<Tool[]>;
  /** The run's budget (shared with its sub-agents). */
  budget: RunBudget;
  /** The run's stop rules, one watcher each. */
  watches: StopWatch[];
  /** Persists a message before the loop goes on. */
  commit(message: Message): Promise<void>;
  /** The stored position of a history message, for `trimContext` taps (checkpoints name it). */
  seqOf(message: Message): number | undefined;
  stream: boolean;
  emit(event: RunEvent): void;
  /** A continued run: the stored response whose calls have no result yet, and results some of them get instead. */
  pending?: { calls: ToolCall[]; results: Map<string, ToolResult> };
  /** A run of a door's own call ({@link RunInput.call}): the pending calls run, then the run ends without a model call. */
  callsOnly?: boolean;
}

export type LoopResult = Omit<RunResult, 'sessionId' | 'agent'>;

/** What the loop keeps between steps. */
interface LoopState {
  input: LoopInput;
  usage: Usage;
  estimator: TokenEstimator;
  /** Turns the token budget dropped in an earlier step: they stay out. */
  dropped: number;
  last?: ChatResponse;
  /** The last committed tool result (what a run of a door's call answers). */
  lastResult?: ToolResult;
}

/**
 * One token estimator per kernel, provider and model, so what a run learnt of the tokenizer
 * holds for the next run too: were each run to start again at four characters a token, the
 * budget in characters (and with it where a cut for `context_tokens` falls) would move between
 * a run's first step and its second, and the prompt would lose its cached start at every step.
 */
const estimators = new WeakMap<Kernel, Map<string, TokenEstimator>>();
function estimatorFor(kernel: Kernel, provider: Provider, model: string): TokenEstimator {
  let byModel = estimators.get(kernel);
  if (!byModel) estimators.set(kernel, byModel = new Map());
  const key = `${provider.name}\0${model}`;
  let estimator = byModel.get(key);
  if (!estimator) byModel.set(key, estimator = new TokenEstimator());
  return estimator;
}

/**
 * The ReAct loop: build the prompt, call the model, stop on an answer without tool calls,
 * otherwise run the calls, commit the results and go round again, until the budget or a stop
 * rule says stop; then one last model call without tools gives the answer. One `await` after
 * another; every message is committed as it is produced.
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const state: LoopState = { input, usage: { inputTokens: 0, outputTokens: 0 }, estimator: estimatorFor(input.kernel, input.provider, input.run.model), dropped: 0 };
  try {
    if (input.pending) {
      const ended = await runCalls(state, await input.tools(), input.pending.calls, input.pending.results);
      // A door's own call ends the run with its result, without a model call.
      if (input.callsOnly) return { ...(ended ?? end(state, 'final', state.lastResult?.content ?? '')), ...(state.lastResult ? { toolResult: state.lastResult } : {}) };
      if (ended) return ended;
    }
    for (;;) {
      const stop = input.run.signal.aborted ? undefined : input.budget.check(input.run.iteration);
      if (input.run.signal.aborted || stop?.limit?.name === 'max_duration_ms') return aborted(state);
      if (stop) return await stopShort(state, stop);
      const tools = await input.tools();
      const response = await step(state, tools);
      const message = response.message;
      await commit(state, message);
      input.emit({ type: 'assistant', message });
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return answered(state, response);
      const ended = await runCalls(state, tools, calls, new Map());
      if (ended) return ended;
    }
  } catch (error) {
    return failed(state, error);
  }
}

/** One model call on this step's prompt; `finalNote` takes the tools away (the last call of a run stopped short). */
async function step(state: LoopState, offered: Tool[], finalNote?: string): Promise<ChatResponse> {
  const { kernel, run, provider, budget, history, stream, emit } = state.input;
  run.iteration++;
  emit({ type: 'iteration', iteration: run.iteration });
  // What the model is told of each tool: its name, description and input schema, nothing else.
  const tools = finalNote ? [] : offered.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const built = await buildPrompt({
    hooks: kernel.hooks, run, history, tools, estimator: state.estimator, dropped: state.dropped,
    images: provider.supports?.(run.model).images ?? false, ...(finalNote ? { finalNote } : {}),
  });
  if (built.dropped.length > state.dropped) {
    const fresh = built.dropped.slice(state.dropped);
    await kernel.hooks.trimContext.promise({ run, reason: 'budget', turns: fresh.map((messages) => ({ firstSeq: state.input.seqOf(messages[0]!), messages })) });
    state.dropped = built.dropped.length;
  }
  emit({ type: 'prompt', report: built.prompt.report });
  const request = { model: run.model, messages: built.messages, tools: built.prompt.tools, signal: run.signal };
  const response = await callModel(kernel, provider, request, run, { stream, emit, budget, report: built.prompt.report });
  state.usage = addUsage(state.usage, response.usage);
  budget.addUsage(response.usage);
  state.estimator.calibrate(built.chars, response.usage.inputTokens);
  state.last = response;
  return response;
}

async function commit(state: LoopState, message: Message): Promise<void> {
  state.input.history.push(message);
  await state.input.commit(message);
}

/**
 * Runs one response's calls (concurrently where allowed) and commits the results in call order.
 * Returns how the run ends when it must end after them: a call suspended (the calls after it do
 * not run; those already running finish and are committed), the run was aborted, or a stop rule
 * or the budget said stop.
 */
async function runCalls(state: LoopState, offered: Tool[], calls: ToolCall[], given: Map<string, ToolResult>): Promise<LoopResult | undefined> {
  const { input } = state;
  const { run, budget, watches, kernel } = input;
  const tools = new Map(offered.map((t) => [t.name, t]));
  const settings = run.agent.settings;
  const executor = new ToolExecutor(kernel, (call, update) => {
    input.emit({ type: 'tool_progress', call, ...update });
    if (run.door) kernel.doorProgress(run, { toolCallId: call.id, ...update });
  });
  let stop: Stop | undefined;
  let suspended: SuspendedCall | undefined;
  // What each call gets instead of running: a given result, over the step's cap, the budget, a rule.
  const instead = calls.map((call, index): ToolResult | undefined => {
    if (given.has(call.id)) return given.get(call.id);
    if (index >= settings.max_tool_calls_per_step) {
      return index > settings.max_tool_calls_per_step ? { content: 'Not run (over max_tool_calls_per_step).', isError: true }
        : { content: `Not run: at most ${settings.max_tool_calls_per_step} tool calls of one response run (max_tool_calls_per_step); this one and the rest were skipped. Call again in your next step what is still needed.`, isError: true };
    }
    if (stop) return notRun(stop);
    const over = budget.takeToolCall();
    if (over) return notRun(stop = over);
    for (const watch of watches) {
      const verdict = watch.beforeCall?.(call);
      if (verdict && 'reason' in verdict) return notRun(stop = verdict);
      if (verdict) return verdict;
    }
    return undefined;
  });
  const start = async (call: ToolCall, index: number): Promise<CallOutcome | undefined> => {
    if (suspended) return undefined;
    input.emit({ type: 'tool_call', call });
    const outcome = await executor.execute(call, run, tools, instead[index]);
    if ('suspended' in outcome) suspended = outcome.suspended;
    return outcome;
  };
  const finish = async (call: ToolCall, outcome: CallOutcome | undefined, index: number): Promise<void> => {
    if (!outcome) return;
    if ('suspended' in outcome) { input.emit({ type: 'suspended', call: outcome.suspended, args: call.args }); return; }
    let { result, message } = outcome;
    for (const watch of instead[index] ? [] : watches) {
      const verdict = watch.afterCall?.(call, result);
      if (typeof verdict === 'string') {
        result = { ...result, content: `${result.content}\n\n${verdict}` };
        message = { ...message, content: result.content };
      } else if (verdict) stop ??= verdict;
    }
    await commit(state, message);
    state.lastResult = result;
    input.emit({ type: 'tool_result', call, result });
  };
  await runBatch(calls, {
    parallel: settings.parallel_tools, max: settings.max_parallel_tools, alone: (call) => tools.get(call.name)?.parallel === false,
  }, start, finish);
  if (suspended) return end(state, 'suspended', '', { suspended: [suspended], notice: `waiting: ${suspended.reason}` });
  if (run.signal.aborted) return aborted(state);
  return stop ? stopShort(state, stop) : undefined;
}

/** An answer without tool calls; a cut-off or withheld one ends with its own stop reason. */
function answered(state: LoopState, response: ChatResponse): LoopResult {
  const text = response.message.content;
  if (response.finishReason === 'length') {
    return end(state, 'length', text, { notice: 'the answer was cut off at the model\'s output token limit (finish reason length): it is incomplete' });
  }
  if (response.finishReason === 'content_filter') {
    return end(state, 'content_filter', text, { notice: `the provider withheld or refused the answer (${response.rawFinishReason ?? 'content_filter'})` });
  }
  return end(state, 'final', text);
}

/**
 * A limit, the budget or a stop rule ends the run: an `onLimit` tap may give the answer; by
 * default one last call without tools asks the model for what it has. The answer is committed
 * like any assistant message.
 */
async function stopShort(state: LoopState, stop: Stop): Promise<LoopResult> {
  const { kernel, run, emit } = state.input;
  emit({ type: 'stopping', reason: stop.reason, notice: stop.notice });
  let final = await kernel.hooks.onLimit.promise({ run, ...stop, ...(state.last ? { last: state.last } : {}) });
  // A door's own call has no model to give the last answer.
  if (!final && !run.signal.aborted && !state.input.callsOnly) {
    final = await step(state, [], finalNote(stop)).catch((error) => {
      kernel.log.warn(`the final answer call after "${stop.notice}" failed: ${errorMessage(error)}`);
      return undefined;
    });
  }
  const details = { notice: stop.notice, ...(stop.limit ? { limit: stop.limit } : {}) };
  if (!final) return end(state, stop.reason, '', details);
  const message: AssistantMessage = { role: 'assistant', content: final.message.content };
  await commit(state, message);
  emit({ type: 'assistant', message });
  return end(state, stop.reason, message.content, details);
}

function aborted(state: LoopState, error?: OryxError): LoopResult {
  const timeout = state.input.budget.timeout;
  if (timeout) return end(state, 'budget', '', { notice: timeout.notice, ...(timeout.limit ? { limit: timeout.limit } : {}) });
  return end(state, 'aborted', '', { notice: 'aborted', ...(error ? { error: errorOf(error) } : {}) });
}

function failed(state: LoopState, error: unknown): LoopResult {
  if (error instanceof BudgetExceeded) return end(state, 'budget', '', { notice: error.stop.notice, ...(error.stop.limit ? { limit: error.stop.limit } : {}) });
  const e = toOryxError(error, 'ORYX_E_LLM_FAILED');
  if (state.input.run.signal.aborted || e.code === 'ORYX_E_RUN_ABORTED') return aborted(state, e);
  return end(state, 'error', '', { error: errorOf(e) });
}

function end(state: LoopState, stopReason: RunResult['stopReason'], answer: string, more: Partial<LoopResult> = {}): LoopResult {
  const { run, budget } = state.input;
  return { runId: run.runId, answer, stopReason, iterations: run.iteration, usage: state.usage, budget: budget.used(), ...more };
}

const errorOf = (e: OryxError) => ({ code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) });

function notRun(stop: Stop): ToolResult {
  return { content: `Not run: the run ${stop.notice}.`, isError: true };
}

/** The system note of the last, tool-less call. */
function finalNote(stop: Stop): string {
  const why = stop.reason === 'loop'
    ? `The run was stopped because it was going round in circles (${stop.notice.replace(/^stopped in a loop: /, '')}).`
    : `You have used your budget for this run (${stop.notice.replace(/^stopped at /, '')}).`;
  return `${why} No tools are available any more. Answer now with what you have, and say plainly what is unfinished.`;
}
