/**
 * The LLM of these tests: a loopback HTTP server speaking OpenAI's chat-completions protocol,
 * so the real `openai` plugin and SDK run. Its answers follow a
 * script keyed by the conversation: the last user message picks a plan, and the number of
 * assistant turns since that message picks the step. The reply shape follows OpenAI's API
 * reference for the chat completion object ("Create chat completion" → the chat.completion
 * response: choices[].message with content and tool_calls of type function whose arguments are
 * a JSON string, finish_reason, and usage with prompt_tokens and completion_tokens), as the
 * openai plugin's own wire tests send it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One model call's answer. */
export interface Step {
  text?: string;
  calls?: { name: string; args: Record<string, unknown> }[];
  /** [prompt tokens, completion tokens]. Default [10, 5]. */
  usage?: [number, number];
}

/** What the request was: the last user message, the step, the model asked for, and the whole body. */
export interface Asked { user: string; step: number; model: string; body: any; system: string; toolResults: { name?: string; content: string }[] }

/** The answer to a request, or undefined for "I do not know that one." */
export type Brain = (asked: Asked) => Step | undefined;

/** A chat.completion object. */
export function completion(step: Step, model: string) {
  const calls = step.calls?.map((c, i) => ({ id: `call_${i}_${Math.random().toString(16).slice(2, 10)}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  const [prompt, done] = step.usage ?? [10, 5];
  return {
    id: 'chatcmpl-eval', object: 'chat.completion', created: 1, model,
    choices: [{ index: 0, message: { role: 'assistant', content: step.text ?? null, ...(calls?.length ? { tool_calls: calls } : {}) }, finish_reason: calls?.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: done, total_tokens: prompt + done },
  };
}

export function asked(body: any): Asked {
  const messages: any[] = body?.messages ?? [];
  let last = -1;
  messages.forEach((m, i) => { if (m.role === 'user') last = i; });
  const after = messages.slice(last + 1);
  const content = (m: any) => (typeof m?.content === 'string' ? m.content : Array.isArray(m?.content) ? m.content.map((p: any) => p.text ?? '').join('') : '');
  return {
    user: last === -1 ? '' : content(messages[last]),
    step: after.filter((m) => m.role === 'assistant').length,
    model: body?.model ?? '',
    body,
    system: content(messages.find((m) => m.role === 'system')),
    toolResults: after.filter((m) => m.role === 'tool').map((m) => ({ content: content(m) })),
  };
}

export interface TestModel {
  /** The base URL, ending in `/v1` (what openai({ baseURL }) takes). */
  url: string;
  /** Every chat request, read. */
  readonly asks: Asked[];
  /** The most requests it was answering at one time. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

/**
 * Starts the scripted model on 127.0.0.1. `delayMs` holds each answer back (to make concurrent
 * runs overlap).
 *
 * @example
 * const model = await testModel(({ user, step }) => (step === 0 ? { text: `you said ${user}` } : undefined));
 * openai({ baseURL: model.url, apiKey: 'sk-test' });
 */
export async function testModel(brain: Brain, options: { delayMs?: number } = {}): Promise<TestModel> {
  const asks: Asked[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any;
    try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { body = {}; }
    if (req.url !== '/v1/chat/completions' || body.stream) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `test model: no ${req.url}${body.stream ? ' (streaming)' : ''}` } }));
      return;
    }
    const a = asked(body);
    asks.push(a);
    const step = brain(a) ?? { text: 'I do not know that one.' };
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    inFlight--;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(step, a.model || 'm')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    asks,
    get maxInFlight() { return maxInFlight; },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
