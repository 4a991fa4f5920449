// What the chat shows, built from a session's stored messages or from a run's stream events.
// Pure data, no DOM: the tests run it in Node.

/** A stored message as `GET /api/sessions/:id` returns it. */
export interface StoredMessage {
  seq: number;
  createdAt: string;
  message: {
    role: 'system' | 'user' | 'assistant' | 'tool';
    content: string;
    toolCalls?: { id: string; name: string; args: Record<string, unknown>; argsError?: string }[];
    toolCallId?: string;
    name?: string;
    isError?: boolean;
  };
}

/** `waiting`: the call waits for a person's approval (no result yet). */
export type ToolStatus = 'running' | 'waiting' | 'ok' | 'error' | 'denied';

/** A tool call and, once it has one, its result. */
export interface ToolItem {
  kind: 'tool';
  key: string;
  callId: string;
  name: string;
  args: unknown;
  status: ToolStatus;
  result?: string;
  deniedReason?: string;
  durationMs?: number;
  /** Who let the call run or denied it, when it waited for a person (from the audit trail, read back). */
  approval?: ToolApproval;
  /** When the call was seen (ms since the epoch), to time it live. */
  startedAt?: number;
}

/** One entry of the chat. */
export type Item =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; streaming?: boolean }
  | ToolItem;

/**
 * How a run ended, when it was not a plain final answer: the reason and, when known, a title in
 * plain words, the code, message and hint. `reason` `stopped`: the server cut the run short
 * (Stop, its time limit, a shutdown); `error`: it failed.
 */
export interface StopNotice { reason: string; title?: string; code?: string; message?: string; hint?: string }

/** How a person decided a call that waited for approval: approved or denied, by whom, and why. */
export interface ToolApproval { decision: 'approved' | 'denied'; by: string; reason?: string }

/** The audit's view of one tool call, to add status, duration and approver to a card read from history. */
export interface ToolAudit { status: 'ok' | 'error' | 'denied'; durationMs?: number; deniedReason?: string; approval?: ToolApproval }

/**
 * The chat of a stored session: user and assistant messages in order, each tool call as a card
 * carrying its result. System messages are left out. `audit` (by tool call id, from the run
 * timeline) adds what the messages do not keep: durations, which errors were denials, and who
 * decided a call that waited for approval.
 * `waiting` holds the ids of calls that wait for a person's approval.
 */
export function fromHistory(messages: StoredMessage[], audit: Map<string, ToolAudit> = new Map(), waiting: ReadonlySet<string> = new Set()): Item[] {
  const items: Item[] = [];
  const cards = new Map<string, ToolItem>();
  for (const { seq, message: m } of messages) {
    if (m.role === 'user') items.push({ kind: 'user', key: `m${seq}`, text: m.content });
    else if (m.role === 'assistant') {
      if (m.content) items.push({ kind: 'assistant', key: `m${seq}`, text: m.content });
      for (const call of m.toolCalls ?? []) {
        const card: ToolItem = { kind: 'tool', key: `m${seq}:${call.id}`, callId: call.id, name: call.name, args: call.argsError ?? call.args, status: 'running' };
        cards.set(call.id, card);
        items.push(card);
      }
    } else if (m.role === 'tool' && m.toolCallId) {
      const card = cards.get(m.toolCallId);
      if (!card) continue;
      const seen = audit.get(m.toolCallId);
      card.result = m.content;
      card.status = seen?.status ?? (m.isError ? 'error' : 'ok');
      if (seen?.deniedReason) card.deniedReason = seen.deniedReason;
      if (seen?.durationMs !== undefined) card.durationMs = seen.durationMs;
      if (seen?.approval) card.approval = seen.approval;
    }
  }
  // A call with no stored result waits for a person, or was cut short (the process died mid-call): never "running".
  for (const card of cards.values()) if (card.status === 'running') card.status = waiting.has(card.callId) ? 'waiting' : 'error';
  return items;
}

/** The tokens a run has used so far (`usage` events, after each model call). */
export interface RunUsage { inputTokens: number; outputTokens: number; cacheReadTokens?: number; calls: number }

/** The events of `POST /api/sessions/:id/messages` with `Accept: text/event-stream`, parsed. */
export type RunStreamEvent =
  | { event: 'token'; data: { text: string; iteration: number } }
  | { event: 'tool_call'; data: { id: string; name: string; args: unknown } }
  | { event: 'tool_result'; data: { id: string; name: string; content: string; isError: boolean; denied?: string } }
  | { event: 'usage'; data: RunUsage }
  | { event: 'stopping'; data: { reason: string; notice: string } }
  | { event: 'approval_required'; data: { id: string; tool: string; summary: string } }
  | { event: 'done'; data: {
    answer: string; stopReason: string; iterations: number; notice?: string; limit?: { name: string; value: number };
    error?: { code: string; message: string; hint?: string };
  } }
  | { event: 'error'; data: { code: string; message: string; hint?: string } };

/**
 * Applies one stream event to the live part of the chat (the items of the run going on) and
 * returns the new list. Text after a tool call starts a new assistant item, as the stored
 * history will have it. `now` times tool calls.
 */
export function applyEvent(items: Item[], e: RunStreamEvent, now: number, keyPrefix: string): Item[] {
  const last = items[items.length - 1];
  switch (e.event) {
    case 'token':
      if (last?.kind === 'assistant' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.data.text }];
      return [...items, { kind: 'assistant', key: `${keyPrefix}${items.length}`, text: e.data.text, streaming: true }];
    case 'tool_call':
      return [...endStreaming(items), {
        kind: 'tool', key: `${keyPrefix}${items.length}:${e.data.id}`, callId: e.data.id, name: e.data.name, args: e.data.args, status: 'running', startedAt: now,
      }];
    case 'tool_result':
      return items.map((item) => (item.kind === 'tool' && item.callId === e.data.id && item.status === 'running' ? {
        ...item,
        status: e.data.denied !== undefined ? 'denied' : e.data.isError ? 'error' : 'ok',
        result: e.data.content,
        ...(e.data.denied !== undefined ? { deniedReason: e.data.denied } : {}),
        ...(item.startedAt !== undefined ? { durationMs: now - item.startedAt } : {}),
      } : item));
    case 'usage':
    case 'stopping':
    case 'approval_required':
      return items;
    default:
      return endStreaming(items);
  }
}

function endStreaming(items: Item[]): Item[] {
  return items.map((item) => (item.kind === 'assistant' && item.streaming ? { kind: 'assistant', key: item.key, text: item.text } : item));
}

/** The notice a run's end calls for: none for a final answer. */
export function stopNoticeOf(e: RunStreamEvent): StopNotice | undefined {
  if (e.event === 'error') return errorNotice(e.data);
  if (e.event !== 'done' || e.data.stopReason === 'final') return undefined;
  const { stopReason: reason, limit, error } = e.data;
  if (error) return { reason, code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  if (reason === 'limit') {
    const n = limit?.value;
    return {
      reason, title: n !== undefined ? `Stopped: the step limit (${n}) was reached` : 'Stopped: the step limit was reached',
      message: `The agent used all the steps it may take in one run${n !== undefined ? ` (${n} model call${n === 1 ? '' : 's'})` : ''} before it had a final answer; its last answer, given without tools, is above.`,
      hint: 'Raise settings.max_iterations in the agent\'s AGENT.md, or ask for less at a time.',
    };
  }
  if (reason === 'budget' && limit) {
    const what = BUDGETS[limit.name];
    return {
      reason, title: what ? `Stopped: the run used up its ${what.title} (${what.value(limit.value)})` : `Stopped: the run reached its ${limit.name} limit (${limit.value})`,
      message: 'Its last answer, given without tools, is above.',
      hint: `Raise settings.${limit.name} in the agent's AGENT.md, or ask for less at a time.`,
    };
  }
  if (reason === 'loop') {
    return { reason, title: 'Stopped: the agent was going round in circles', message: 'It repeated the same steps without getting anywhere, so the run was ended; its last answer is above.', hint: 'Rephrase the request, or give the agent what it was missing.' };
  }
  return { reason, ...(KNOWN_STOPS[reason] ?? {}) };
}

/** Budgets by their setting: how to name one in a sentence, and its value. */
const BUDGETS: Record<string, { title: string; value(n: number): string }> = {
  max_tool_calls: { title: 'tool calls', value: (n) => `${n}` },
  max_tokens: { title: 'token budget', value: (n) => `${n.toLocaleString('en-US')} tokens` },
  max_duration_ms: { title: 'time', value: (n) => (n % 1000 === 0 ? `${n / 1000} s` : `${n} ms`) },
  max_llm_retries: { title: 'model call retries', value: (n) => `${n}` },
};

/**
 * An `error` event (or an API error) as a notice. The ways the server cuts a run short are said
 * in plain words, once; a failure keeps its code, message and hint, which say how to fix it.
 */
export function errorNotice(e: { code?: string; message: string; hint?: string }): StopNotice {
  const plain = PLAIN_ERRORS[e.code ?? ''];
  if (plain) return { reason: 'stopped', code: e.code!, ...plain(e.message) };
  return { reason: 'error', ...(e.code ? { code: e.code } : {}), message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
}

const KEPT = 'Everything up to that point is kept in the session: send the next message when you are ready.';

const PLAIN_ERRORS: Record<string, (message: string) => Omit<StopNotice, 'reason' | 'code'>> = {
  ORYX_E_WEB_STOPPED: () => ({ title: 'Stopped: you pressed Stop', message: KEPT }),
  ORYX_E_RUN_ABORTED: () => ({ title: 'Stopped: the connection to the run was closed', message: KEPT }),
  ORYX_E_WEB_TIMEOUT: (m) => {
    const ms = /(\d+) ms/.exec(m)?.[1];
    return {
      title: `Stopped: the run took longer than the server allows${ms ? ` (${Number(ms) % 1000 === 0 ? `${Number(ms) / 1000} s` : `${ms} ms`})` : ''}`,
      message: KEPT, hint: 'Ask for less at a time, or raise invokeTimeoutMs in web() in oryx.config.ts.',
    };
  },
  ORYX_E_WEB_SHUTTING_DOWN: () => ({ title: 'Stopped: the server shut down', message: 'Everything up to that point is kept in the session: send the next message once the server is back.' }),
  ORYX_E_WEB_SESSION_DELETED: () => ({ title: 'Stopped: the session was deleted', message: 'Start a new chat to go on.' }),
};

/** What the console says about the other stop reasons it knows; any other is shown by name (and its details, when the server sends them). */
const KNOWN_STOPS: Record<string, Omit<StopNotice, 'reason'>> = {
  suspended: {
    title: 'Waiting for your approval',
    message: 'A tool call waits for your approval: approve or deny it below, and the run goes on.',
  },
  length: {
    title: 'The answer was cut off',
    message: 'The model reached the most it may write in one answer.',
    hint: 'Ask for a shorter answer, or raise the model\'s output limit.',
  },
  content_filter: {
    title: 'The answer was withheld',
    message: 'The provider withheld or refused the answer.',
    hint: 'Rephrase the request; the provider\'s content policy stopped it.',
  },
};
