/**
 * Runs, model calls and tool calls as spans, from the kernel's hooks: `invoke_agent {agent}` per
 * run (under what started it: a REST request, a scheduler slot, the caller's `execute_tool` span
 * for a sub-agent, an incoming `traceparent`), `chat {model}` per model call (its retries as
 * events), `execute_tool {tool}` per tool call. The W3C trace context of each model call and tool
 * call goes on its request headers, so providers, `http_request` and MCP servers carry it on.
 */
import {
  ROOT_CONTEXT, SpanKind, SpanStatusCode, defaultTextMapGetter, defaultTextMapSetter, trace,
  type Attributes, type Context, type Link, type Span, type SpanContext, type TextMapPropagator, type Tracer,
} from '@opentelemetry/api';
import type { Approval } from '@oryxos/contracts';
import type { LLMCallInfo, Logger, RunContext, RunResult, ToolCallInfo, ToolResult, ToolResultInfo } from '@oryxos/kernel';
import type { ChatResponse, OryxError } from '@oryxos/provider-spec';
import { agentToolName, ERROR_TYPE, EVENTS, finishReason, GEN_AI, ORYX, usageAttributes } from './attributes.ts';
import type { ContentRecorder } from './content.ts';

/** Reads a stored approval (the `approvals` service, when a plugin provides it). */
export type ApprovalLookup = (id: string) => Promise<Approval | undefined>;

interface ToolState { span: Span; started: number; tool: string }
interface RunState {
  span: Span;
  context: Context;
  origin?: Span;
  chat?: Span;
  tools: Map<string, ToolState>;
}

/** How many suspended calls' span contexts are kept for the runs that continue them (in this process). */
const KEPT_SUSPENDED = 1000;

export class RunTracer {
  private readonly runs = new Map<string, RunState>();
  /** Approval id → the span of the call that waited for it, linked from the run that continues it. */
  private readonly suspended = new Map<string, SpanContext>();

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: TextMapPropagator,
    private readonly deps: { content?: ContentRecorder; mask(text: string): string; approvals: ApprovalLookup; log: Logger },
  ) {}

  /** Open spans, for tests and diagnostics. */
  get openRuns(): number { return this.runs.size; }

  runStart(run: RunContext): void {
    this.open(run);
  }

  beforeLLM(info: LLMCallInfo): void {
    const state = this.open(info.run);
    const { request, run } = info;
    if (!state.chat) {
      const attributes: Attributes = {
        [GEN_AI.operation]: 'chat', [GEN_AI.provider]: run.provider, [GEN_AI.requestModel]: request.model, [GEN_AI.conversation]: run.sessionId,
        [ORYX.runId]: run.runId, [ORYX.toolsOffered]: request.tools.length,
      };
      if (request.maxOutputTokens !== undefined) attributes[GEN_AI.maxTokens] = request.maxOutputTokens;
      if (info.prompt) {
        attributes[ORYX.promptTokens] = info.prompt.estimatedTokens;
        if (info.prompt.cut.length) attributes[ORYX.promptCut] = info.prompt.cut.map((c) => c.section);
      }
      const content = this.deps.content;
      if (content) {
        attributes[GEN_AI.inputMessages] = content.inputMessages(request.messages);
        if (request.tools.length) attributes[GEN_AI.toolDefinitions] = JSON.stringify(request.tools.map((t) => ({ type: 'function', name: t.name })));
      }
      state.chat = this.tracer.startSpan(`chat ${request.model}`, { kind: SpanKind.CLIENT, attributes }, state.context);
    }
    // Every attempt carries the call's trace context to the provider's server.
    request.headers = { ...request.headers, ...this.carrier(state.chat) };
  }

  afterLLM(response: ChatResponse, info: LLMCallInfo): void {
    const state = this.runs.get(info.run.runId);
    const span = state?.chat;
    if (!state || !span) return;
    state.chat = undefined;
    span.setAttributes({
      [GEN_AI.responseModel]: response.model,
      [GEN_AI.finishReasons]: [finishReason(response.finishReason, response.rawFinishReason)],
      ...usageAttributes(response.usage),
      [ORYX.attempts]: info.attempt,
      ...(response.rawFinishReason ? { [ORYX.rawFinishReason]: response.rawFinishReason } : {}),
    });
    if (this.deps.content) span.setAttribute(GEN_AI.outputMessages, this.deps.content.outputMessages(response));
    span.end();
  }

  llmError(error: OryxError, info: LLMCallInfo & { willRetry: boolean }): void {
    const state = this.runs.get(info.run.runId);
    const span = state?.chat;
    if (!state || !span) return;
    const message = this.deps.mask(error.message);
    if (info.willRetry) {
      span.addEvent(EVENTS.retry, { [ORYX.attempt]: info.attempt, [ERROR_TYPE]: error.code, [ORYX.errorMessage]: message });
      return;
    }
    state.chat = undefined;
    span.setAttributes({ [ERROR_TYPE]: error.code, [ORYX.attempts]: info.attempt });
    span.recordException({ name: error.code, message });
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.end();
  }

  /** First `beforeTool` tap: the call's span starts, and its trace context goes on the call's headers. */
  async toolStart(info: ToolCallInfo): Promise<void> {
    const state = this.open(info.run);
    const { call, tool, run } = info;
    const attributes: Attributes = {
      [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: call.name, [GEN_AI.toolCallId]: call.id, [ORYX.runId]: run.runId,
    };
    if (tool) {
      if (tool.description) attributes[GEN_AI.toolDescription] = tool.description.slice(0, 1000);
      attributes[GEN_AI.toolType] = tool.source === 'mcp' ? 'extension' : 'function';
      attributes[ORYX.toolSource] = tool.source;
      if (tool.plugin) attributes[ORYX.toolPlugin] = tool.plugin;
    }
    if (this.deps.content) attributes[GEN_AI.toolArguments] = this.deps.content.toolArguments(call);
    const span = this.tracer.startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, state.context);
    state.tools.set(call.id, { span, started: performance.now(), tool: call.name });
    Object.assign(info.headers, this.carrier(span));
    const waited = run.continued?.suspended.find((s) => s.toolCallId === call.id);
    const approvalId = waited?.data?.approvalId;
    if (typeof approvalId === 'string') await this.decided(span, approvalId);
  }

  /** Last `beforeTool` tap (the guards let the call through): how long they held it, and whether a person's approval covers it. */
  toolPassed(info: ToolCallInfo): void {
    const tool = this.runs.get(info.run.runId)?.tools.get(info.call.id);
    if (!tool) return;
    const guardMs = Math.round(performance.now() - tool.started);
    tool.span.setAttribute(ORYX.guardMs, guardMs);
    if (info.asks.length || info.approved.length) {
      tool.span.addEvent(EVENTS.approvalGranted, { [ORYX.approvalAsks]: info.asks.map((a) => this.deps.mask(a.reason)), [ORYX.approvalWaitMs]: guardMs });
    }
  }

  afterTool(result: ToolResult, info: ToolResultInfo): void {
    const state = this.open(info.run);
    let tool = state.tools.get(info.call.id);
    if (!tool) {
      // No beforeTool for this call (an unknown tool, bad arguments, a result the kernel gave instead): its span is its duration.
      const span = this.tracer.startSpan(`execute_tool ${info.call.name}`, {
        kind: SpanKind.INTERNAL, startTime: Date.now() - info.durationMs,
        attributes: { [GEN_AI.operation]: 'execute_tool', [GEN_AI.toolName]: info.call.name, [GEN_AI.toolCallId]: info.call.id, [ORYX.runId]: info.run.runId },
      }, state.context);
      tool = { span, started: performance.now() - info.durationMs, tool: info.call.name };
    }
    state.tools.delete(info.call.id);
    const { span } = tool;
    const asked = info.asks.length > 0 || info.approved.length > 0;
    span.setAttributes({
      [ORYX.toolStatus]: info.status,
      [ORYX.sandboxDecision]: info.status === 'denied' ? 'deny' : asked ? 'ask' : 'allow',
      [ORYX.resultChars]: result.content.length,
      ...(result.fullChars !== undefined ? { [ORYX.fullChars]: result.fullChars } : {}),
      ...(result.retryable ? { [ORYX.retryable]: true } : {}),
      ...(result.interrupted ? { [ORYX.interrupted]: true } : {}),
    });
    if (info.status === 'denied') span.setAttribute(ORYX.deniedReason, this.deps.mask(result.denied ?? result.content).slice(0, 1000));
    if (info.status !== 'ok') {
      span.setAttribute(ERROR_TYPE, info.status === 'denied' ? 'denied' : 'tool_error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: this.deps.mask(result.content).slice(0, 500) });
    } else if (this.deps.content) {
      span.setAttribute(GEN_AI.toolResult, this.deps.content.text(result.content));
    }
    span.end();
  }

  afterRun(result: RunResult, run: RunContext): void {
    const state = this.open(run);
    this.runs.delete(run.runId);
    // A call the run suspended at has no result: its span ends here, saying what it waits for.
    for (const call of result.suspended ?? []) {
      const tool = state.tools.get(call.toolCallId);
      if (!tool) continue;
      state.tools.delete(call.toolCallId);
      const approvalId = call.data?.approvalId;
      tool.span.addEvent(EVENTS.approvalRequested, {
        ...(typeof approvalId === 'string' ? { [ORYX.approvalId]: approvalId } : {}), [ORYX.approvalReason]: this.deps.mask(call.reason).slice(0, 1000),
      });
      tool.span.setAttributes({ [ORYX.toolStatus]: 'suspended', [ORYX.sandboxDecision]: 'ask' });
      if (typeof approvalId === 'string') this.keepSuspended(approvalId, tool.span.spanContext());
      tool.span.end();
    }
    // Calls held behind the suspended one, a model call cut short by a failing tap.
    for (const tool of state.tools.values()) {
      tool.span.setAttribute(ORYX.toolStatus, result.stopReason === 'suspended' ? 'suspended' : 'unfinished');
      tool.span.end();
    }
    if (state.chat) { state.chat.setAttribute(ERROR_TYPE, result.error?.code ?? 'unfinished'); state.chat.setStatus({ code: SpanStatusCode.ERROR }); state.chat.end(); }
    const span = state.span;
    span.setAttributes({
      [ORYX.stopReason]: result.stopReason,
      [ORYX.iterations]: result.iterations,
      ...usageAttributes(result.usage),
      [ORYX.budgetTokens]: result.budget.tokens,
      [ORYX.budgetToolCalls]: result.budget.toolCalls,
      [ORYX.budgetRetries]: result.budget.retries,
      [ORYX.budgetMs]: result.budget.ms,
      ...(result.notice ? { [ORYX.notice]: result.notice } : {}),
      ...(result.limit ? { [ORYX.limitName]: result.limit.name, [ORYX.limitValue]: result.limit.value } : {}),
    });
    if (this.deps.content && result.answer) {
      span.setAttribute(GEN_AI.outputMessages, this.deps.content.answer(result.answer));
    }
    if (result.stopReason === 'error') {
      const code = result.error?.code ?? 'ORYX_E_RUN_FAILED';
      const message = this.deps.mask(result.error?.message ?? 'the run failed');
      span.setAttribute(ERROR_TYPE, code);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      state.origin?.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    span.end();
    state.origin?.setAttribute(ORYX.stopReason, result.stopReason);
    state.origin?.end();
  }

  /** Ends every open span (the host is closing with runs still going on). */
  endAll(): void {
    for (const state of this.runs.values()) {
      for (const tool of state.tools.values()) tool.span.end();
      state.chat?.end();
      state.span.setAttribute(ORYX.stopReason, 'unfinished');
      state.span.end();
      state.origin?.end();
    }
    this.runs.clear();
  }

  // -------------------------------------------------------------------------------------

  /** The run's spans, started on first sight (a run a guard refused at runStart is seen first at afterRun). */
  private open(run: RunContext): RunState {
    const known = this.runs.get(run.runId);
    if (known) return known;
    let parent = this.parentOf(run);
    let origin: Span | undefined;
    if (run.origin?.name && !run.parentRunId) {
      const attrs = run.origin.attributes ?? {};
      origin = this.tracer.startSpan(run.origin.name, {
        kind: attrs['http.request.method'] !== undefined ? SpanKind.SERVER : SpanKind.INTERNAL,
        attributes: { ...attrs }, ...(run.origin.startedAt ? { startTime: run.origin.startedAt } : {}),
      }, parent);
      parent = trace.setSpan(ROOT_CONTEXT, origin);
    }
    const attributes: Attributes = {
      [GEN_AI.operation]: 'invoke_agent', [GEN_AI.provider]: run.provider, [GEN_AI.agentName]: run.agent.name,
      [GEN_AI.requestModel]: run.model, [GEN_AI.conversation]: run.sessionId, [ORYX.runId]: run.runId,
    };
    if (run.agent.description) attributes[GEN_AI.agentDescription] = run.agent.description.slice(0, 1000);
    if (run.door) attributes[ORYX.door] = run.door;
    if (run.parentRunId) attributes[ORYX.parentRunId] = run.parentRunId;
    if (run.continued) attributes[ORYX.continued] = true;
    const links: Link[] = [];
    for (const call of run.continued?.suspended ?? []) {
      const id = call.data?.approvalId;
      const context = typeof id === 'string' ? this.suspended.get(id) : undefined;
      if (context) links.push({ context, attributes: { [ORYX.linkKind]: 'continues', [ORYX.approvalId]: id as string } });
    }
    const span = this.tracer.startSpan(`invoke_agent ${run.agent.name}`, {
      kind: SpanKind.INTERNAL, attributes, links, startTime: Date.parse(run.startedAt),
    }, parent);
    const state: RunState = { span, context: trace.setSpan(ROOT_CONTEXT, span), tools: new Map(), ...(origin ? { origin } : {}) };
    this.runs.set(run.runId, state);
    return state;
  }

  /**
   * What a run's span is a child of: for a sub-agent, the caller's `execute_tool` span (from the
   * trace context its call carried, or the one call of the caller that starts this agent); else
   * the trace context its door passed on (an incoming `traceparent`); else nothing (a new trace).
   */
  private parentOf(run: RunContext): Context {
    const carrier = run.origin?.carrier;
    const extracted = carrier ? this.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter) : ROOT_CONTEXT;
    if (trace.getSpanContext(extracted)) return extracted;
    if (run.parentRunId) {
      const caller = this.runs.get(run.parentRunId);
      if (caller) {
        const name = agentToolName(run.agent.name);
        const calls = [...caller.tools.values()].filter((t) => t.tool === name);
        return calls.length === 1 ? trace.setSpan(ROOT_CONTEXT, calls[0]!.span) : caller.context;
      }
    }
    return ROOT_CONTEXT;
  }

  /** `traceparent` (and `tracestate`) for a span, as headers. */
  private carrier(span: Span): Record<string, string> {
    const out: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), out, defaultTextMapSetter);
    return out;
  }

  /** The decision on the approval a continued call waited for, as an event on its span. */
  private async decided(span: Span, approvalId: string): Promise<void> {
    const approval = await this.deps.approvals(approvalId).catch((error) => {
      this.deps.log.debug(`could not read approval ${approvalId}: ${(error as Error).message}`);
      return undefined;
    });
    if (!approval) { span.addEvent(EVENTS.approvalDecided, { [ORYX.approvalId]: approvalId }); return; }
    const decision = approval.status === 'used' ? 'approved' : approval.status;
    const attributes: Attributes = { [ORYX.approvalId]: approvalId, [ORYX.approvalDecision]: decision };
    if (approval.decidedBy) attributes[ORYX.approvalBy] = approval.decidedBy;
    if (approval.reason) attributes[ORYX.approvalReason] = this.deps.mask(approval.reason).slice(0, 1000);
    if (approval.decidedAt) attributes[ORYX.approvalWaitMs] = Math.max(0, Date.parse(approval.decidedAt) - Date.parse(approval.requestedAt));
    span.addEvent(EVENTS.approvalDecided, attributes);
  }

  private keepSuspended(approvalId: string, context: SpanContext): void {
    this.suspended.set(approvalId, context);
    if (this.suspended.size > KEPT_SUSPENDED) this.suspended.delete(this.suspended.keys().next().value!);
  }
}
