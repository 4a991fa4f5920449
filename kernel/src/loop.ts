import { setTimeout as sleep } from 'node:timers/promises';
import { OryxError, toOryxError } from './errors.ts';
import { ToolExecutor } from './executor.ts';
import type { Kernel } from './kernel.ts';
import { buildPrompt, TokenEstimator, promptChars } from './prompt.ts';
import type {
  ChatRequest, ChatResponse, Message, Provider, RunContext, RunEvent, RunResult, StopReason, Tool, Usage,
} from './types.ts';

export interface LoopInput {
  kernel: Kernel;
  run: RunContext;
  provider: Provider;
  /** Prior history plus the new user message; the loop appends to it. */
  history: Message[];
  tools: Tool[];
  /** Persists messages as they are produced, before the loop goes on. */
  commit(messages: Message[]): Promise<void>;
  seqOf?(m: Message): number | undefined;
  stream?: boolean;
  onEvent?(event: RunEvent): void;
}

export type LoopResult = Omit<RunResult, 'sessionId' | 'agent'>;

/**
 * The ReAct loop: build the prompt, call the model, stop on an answer without tool calls,
 * otherwise run each call, record the results and go round again, up to `max_iterations`.
 * One `await` after another; every message is committed as it is produced.
 */
export async function runLoop(input: LoopInput): Promise<LoopResult> {
  const { kernel, run, provider, history } = input;
  const emit = input.onEvent ?? (() => {});
  const executor = new ToolExecutor(kernel);
  const estimator = new TokenEstimator();
  const trimmed = new WeakSet<Message>();
  const toolMap = new Map(input.tools.map((t) => [t.name, t]));
  const specs = input.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const max = run.agent.settings.max_iterations;
  const end = (stopReason: StopReason, answer: string, error?: OryxError): LoopResult => ({
    answer, stopReason, iterations: run.iteration, usage,
    ...(error ? { error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } } : {}),
  });

  try {
    do {
      if (run.signal.aborted) return end('aborted', '');
      run.iteration++;
      emit({ type: 'iteration', iteration: run.iteration });
      const { messages, prompt } = await buildPrompt({
        hooks: kernel.hooks, run, history, tools: specs, estimator, seqOf: input.seqOf, trimmed,
      });
      emit({ type: 'prompt', report: prompt.report });
      const request: ChatRequest = { model: run.model, messages, tools: prompt.tools, signal: run.signal };
      const response = await callModel(kernel, provider, request, run, input.stream ?? false, emit);
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      estimator.calibrate(promptChars(prompt), response.usage.inputTokens);

      const assistant = response.message;
      history.push(assistant);
      await input.commit([assistant]);
      emit({ type: 'assistant', message: assistant });
      const calls = assistant.toolCalls ?? [];
      if (calls.length === 0) return end('final', assistant.content);

      for (const [index, call] of calls.entries()) {
        emit({ type: 'tool_call', call });
        const { message, result } = await executor.execute(call, run, toolMap, index);
        history.push(message);
        await input.commit([message]);
        emit({ type: 'tool_result', call, result });
      }
      if (run.signal.aborted) return end('aborted', '');
      if (run.iteration >= max) {
        const final = (await kernel.hooks.onLimit.promise({ run, last: response })) ?? response;
        if (final !== response) {
          const message = { ...final.message, toolCalls: undefined };
          history.push(message);
          await input.commit([message]);
        }
        return end('limit', final.message.content);
      }
    } while (true);
  } catch (error) {
    const e = toOryxError(error, 'ORYX_E_LLM_FAILED');
    if (run.signal.aborted || e.code === 'ORYX_E_RUN_ABORTED') return end('aborted', '', e);
    return end('error', '', e);
  }
}

/**
 * One model call with retries: errors marked `retryable` are tried again with exponential
 * backoff and full jitter (honouring `retry-after`), each attempt seen by `afterLLM` or
 * `llmError`. A streamed call that already emitted tokens is not retried.
 */
export async function callModel(
  kernel: Kernel, provider: Provider, request: ChatRequest, run: RunContext, stream: boolean, emit: (e: RunEvent) => void,
): Promise<ChatResponse> {
  const { maxRetries = 2, baseDelayMs = 500, maxDelayMs = 30_000 } = provider.retry ?? {};
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
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
      const e = run.signal.aborted
        ? new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: error })
        : toOryxError(error, 'ORYX_E_LLM_FAILED', { hint: `The call to provider "${provider.name}" (model ${request.model}) failed.` });
      const willRetry = e.retryable && attempt <= maxRetries && !emitted && !run.signal.aborted;
      await kernel.hooks.llmError.promise(e, { run, request, attempt, latencyMs, willRetry });
      // Once tokens were shown a retry would show them twice, so it is not retried: say so.
      if (emitted && e.retryable && !run.signal.aborted) throw cutOffError(e);
      if (!willRetry) throw e;
      const backoff = Math.random() * baseDelayMs * 2 ** (attempt - 1);
      const delayMs = Math.min(maxDelayMs, Math.max(e.retryAfterMs ?? 0, backoff));
      emit({ type: 'retry', attempt, delayMs: Math.round(delayMs), error: { code: e.code, message: e.message } });
      await sleep(delayMs, undefined, { signal: run.signal }).catch(() => {});
      if (run.signal.aborted) throw new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted');
      continue;
    }
    const latencyMs = Math.round(performance.now() - started);
    return kernel.hooks.afterLLM.promise(response, { run, request, attempt, latencyMs });
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
