/**
 * The wire tests every provider plugin must pass, whatever its protocol: answers and tool
 * calls round-trip, streamed tokens arrive as tokens, each failure gets its `ORYX_E_LLM_*` code
 * and is retried or not as it should be, aborts and time limits cut the HTTP request. A
 * provider gives a {@link WireDialect} (how its server speaks) and gets the tests.
 */
import assert from 'node:assert/strict';
import { STAGE, type Plugin, type RunEvent } from '@oryxos/kernel';
import type { ChatResponse, OryxError } from '@oryxos/provider-spec';
import { answerWireSuite } from './answer-suite.ts';
import { echoTool, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import { wireServer, type Framing, type Reply, type ScriptEntry, type WireServer, type WireServerOptions } from './wire-server.ts';

/** A tool call as a wire builder takes it; a string `args` is sent as it is (malformed JSON included). */
export interface WireCall { id?: string; name: string; args: string | Record<string, unknown> }

/** How one provider's server speaks, for {@link providerWireSuite}. */
export interface WireDialect {
  /** The provider name the plugin registers by default (`openai`), as error messages name it. */
  provider: string;
  framing: Framing;
  /** Where the API lives under the origin (`/v1`). */
  basePath?: string;
  /** Paths the plugin may call besides the scripted ones, and their answer (see {@link WireServerOptions.side}). */
  side?: Record<string, (body: any) => Reply>;
  /** The plugin under test, pointed at `url`, with `options` on top of its own test defaults. */
  plugin(url: string, options: Record<string, unknown>): Plugin;
  /** Options that make a call time out after `ms` of silence (before and during an answer). */
  idleTimeout(ms: number): Record<string, unknown>;
  /** A whole (non-streamed) answer. */
  answer(input: WireAnswer): unknown;
  /** The events of the same answer streamed (reasoning and text in pieces, tool calls, then the end). */
  streamed(input: WireAnswer): unknown[];
  /** The events of a streamed text answer, ending with its usage. */
  stream(pieces: string[], usage: [number, number]): unknown[];
  /** One streamed event carrying a piece of text (not the end). */
  piece(text: string): unknown;
  /** An error body the server sends with a failing status. */
  error(message: string): unknown;
  /** What the hint for an unreachable server names (`baseURL`, `OLLAMA_HOST`). */
  urlOption: string;
  /** An error event inside a stream, as this server sends one (vLLM's `{"object": "error"}`, Anthropic's `event: error`). */
  streamError(message: string): unknown;
  /** The server's own words for a cut-off answer and (where it has one) a withheld one: what `rawFinishReason` keeps. */
  finishWords: { length: string; content_filter?: string };
  /** True when the server reports cached input tokens (Ollama does not). */
  reportsCache: boolean;
  /** The reasoning the request body carries back on its assistant message number `n` (0-based), or undefined. */
  echoedReasoning(body: any, n: number): string | undefined;
  /** The output-token cap the request body carries, or undefined. */
  maxTokensOf(body: any): number | undefined;
}

/** An answer as the dialect builders take it. `reasoning` comes before the text and the calls. */
export interface WireAnswer {
  content?: string;
  toolCalls?: WireCall[];
  usage?: [number, number];
  reasoning?: string;
  /** A cut-off or withheld answer (the dialect writes its own word for it). */
  finish?: 'length' | 'content_filter';
  /** Cached input tokens the server reports (read, and written where it says). */
  cache?: { read: number; write?: number };
}

/** One failed model attempt, as the kernel's `llmError` hook saw it. */
export interface Attempt { code: string; attempt: number; willRetry: boolean; retryable: boolean; retryAfterMs?: number; status?: unknown; message: string; hint?: string }

/**
 * A plugin that records every failed model attempt (code, whether it will be retried,
 * `retry-after`, HTTP status).
 *
 * @example
 * const attempts: Attempt[] = [];
 * await testKernel({ plugins: [myProvider(), attemptRecorder(attempts)] });
 */
export function attemptRecorder(into: Attempt[]): Plugin {
  return {
    name: 'attempt-recorder', version: '1.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.llmError.tapPromise({ stage: STAGE.OBSERVE }, async (e: OryxError, info) => {
        into.push({ code: e.code, attempt: info.attempt, willRetry: info.willRetry, retryable: e.retryable, retryAfterMs: e.retryAfterMs, status: e.data?.status, message: e.message, hint: e.hint });
      });
    },
  };
}

/**
 * A plugin that records every model response the kernel received (finish reason, usage,
 * message with its parts and metadata).
 *
 * @example
 * const responses: ChatResponse[] = [];
 * await testKernel({ plugins: [myProvider(), responseRecorder(responses)] });
 */
export function responseRecorder(into: ChatResponse[]): Plugin {
  return {
    name: 'response-recorder', version: '1.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.afterLLM.tapPromise({ stage: STAGE.OBSERVE }, async (response: ChatResponse) => { into.push(structuredClone(response)); return response; });
    },
  };
}

/** A kernel with the dialect's plugin pointed at a fresh wire server, an `echo` tool and an attempt recorder. */
export async function wireKernel(dialect: WireDialect, script: ScriptEntry[], options: Record<string, unknown> = {}) {
  const server = await wireServer(script, { framing: dialect.framing, basePath: dialect.basePath, side: dialect.side });
  const echo = echoTool();
  const attempts: Attempt[] = [];
  const responses: ChatResponse[] = [];
  const t = await testKernel({
    plugins: [dialect.plugin(server.url, { maxRetries: 2, retryBaseDelayMs: 1, ...options }), toolsPlugin(echo), attemptRecorder(attempts), responseRecorder(responses)],
  });
  return { server, echo, attempts, responses, t, async cleanup() { await t.close(); await server.close(); } };
}

/** A test registrar: uvu's `test`, or anything with that shape. */
export type Test = (name: string, fn: () => Promise<void>) => void;
/** What {@link wireKernel} returns. */
export type WireKit = Awaited<ReturnType<typeof wireKernel>>;
/** Runs `check` on a fresh {@link wireKernel} with `script` and `options`, then cleans up. */
export type WireRun = (script: ScriptEntry[], options: Record<string, unknown>, check: (s: WireKit) => Promise<void>) => Promise<void>;

async function closed(server: WireServer): Promise<void> {
  await server.closedEarlyOnce;
  assert.equal(server.closedEarly, 1, 'the server saw the request closed');
}

/**
 * Registers the shared wire tests with `test` (a uvu suite, or anything with that shape).
 *
 * @example
 * import { test } from 'uvu';
 * import { providerWireSuite } from '@oryxos/provider-kit/testing';
 * providerWireSuite(test, ollamaDialect);
 * test.run();
 */
export function providerWireSuite(test: Test, d: WireDialect): void {
  const run: WireRun = async (script, options, check) => {
    const s = await wireKernel(d, script, options);
    try { await check(s); } finally { await s.cleanup(); }
  };
  const tokensOf = (into: string[]) => (e: RunEvent) => { if (e.type === 'token') into.push(e.text); };
  const label = `provider "${d.provider}" (model m)`;

  test(`${d.provider} wire: a tool call round-trips and the answer comes back, usage summed`, () => run([
    { json: d.answer({ toolCalls: [{ id: 'call_1', name: 'echo', args: { text: 'one' } }], usage: [11, 2] }) },
    { json: d.answer({ content: 'done', usage: [20, 3] }) },
  ], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.deepEqual([r.stopReason, r.answer, r.iterations], ['final', 'done', 2]);
    assert.deepEqual(r.usage, { inputTokens: 31, outputTokens: 5 });
    assert.deepEqual(s.echo.calls, [{ text: 'one' }]);
    assert.ok(JSON.stringify(s.server.requests[1]!.body).includes('echo: one'), 'the tool result went back to the model');
  }));

  test(`${d.provider} wire: a streamed answer arrives as tokens, with its usage`, () => run([{ events: d.stream(['All ', 'done', '.'], [50, 5]) }], {}, async (s) => {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
    assert.equal(r.answer, 'All done.');
    assert.deepEqual(tokens, ['All ', 'done', '.']);
    assert.deepEqual(r.usage, { inputTokens: 50, outputTokens: 5 });
  }));

  test(`${d.provider} wire: 429 with retry-after is retried after the server's wait, then succeeds`, () => run([
    { status: 429, headers: { 'retry-after': '1' }, json: d.error('slow down') },
    { json: d.answer({ content: 'fine' }) },
  ], {}, async (s) => {
    const retries: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => { if (e.type === 'retry') retries.push(e); } });
    assert.equal(r.answer, 'fine');
    assert.deepEqual(s.attempts.map((a) => [a.code, a.willRetry, a.retryAfterMs, a.status]), [['ORYX_E_LLM_RATE_LIMIT', true, 1000, 429]]);
    assert.ok((retries[0] as { delayMs: number }).delayMs >= 1000, 'the wait honours retry-after');
  }));

  test(`${d.provider} wire: 500 on every attempt is tried maxRetries + 1 times, then a final error naming provider and model`, () => run([
    { status: 500, json: d.error('the server broke') }, { status: 500, json: d.error('the server broke') }, { status: 500, json: d.error('the server broke') },
  ], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(r.error?.code, 'ORYX_E_LLM_SERVER');
    assert.match(r.error!.message, new RegExp(`^${label.replace(/[()]/g, '\\$&')}: server error \\(HTTP 500\\): the server broke`));
    assert.deepEqual(s.attempts.map((a) => [a.attempt, a.willRetry]), [[1, true], [2, true], [3, false]]);
  }));

  for (const [status, code] of [[401, 'ORYX_E_LLM_AUTH'], [404, 'ORYX_E_LLM_NOT_FOUND'], [400, 'ORYX_E_LLM_BAD_REQUEST']] as const) {
    test(`${d.provider} wire: ${status} is final (${code}), one attempt`, () => run([{ status, json: d.error(`refused ${status}`) }], {}, async (s) => {
      const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
      assert.equal(r.error?.code, code);
      assert.match(r.error!.message, new RegExp(`refused ${status}`));
      assert.ok(r.error!.hint, 'a hint says how to fix it');
      assert.equal(s.server.requests.length, 1);
    }));
  }

  test(`${d.provider} wire: a server that never answers times out, is retried, then ORYX_E_LLM_TIMEOUT naming the URL`, () => run([{ hang: true }, { hang: true }], { ...d.idleTimeout(150), maxRetries: 1 }, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.ok(r.error!.message.includes(s.server.url), r.error!.message);
    assert.deepEqual(s.attempts.map((a) => a.willRetry), [true, false]);
  }));

  test(`${d.provider} wire: a connection reset is retried and the next attempt succeeds`, () => run([{ destroy: true }, { json: d.answer({ content: 'back' }) }], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(r.answer, 'back');
    assert.deepEqual(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_CONNECTION', true]]);
  }));

  test(`${d.provider} wire: an abort mid-stream closes the HTTP request and is not retried`, () => run([{ events: [d.piece('Hel'), d.piece('lo')], hold: true }], {}, async (s) => {
    const controller = new AbortController();
    const tokens: string[] = [];
    const r = await s.t.service.process({
      agent: 'assistant', message: 'go', stream: true, signal: controller.signal,
      onEvent: (e) => { tokensOf(tokens)(e); if (tokens.length === 2) controller.abort(); },
    });
    assert.equal(r.stopReason, 'aborted');
    assert.deepEqual(tokens, ['Hel', 'lo']);
    await closed(s.server);
    assert.equal(s.server.requests.length, 1);
  }));

  test(`${d.provider} wire: an abort of a non-streamed call closes the HTTP request too`, () => run([{ hang: true }], {}, async (s) => {
    const controller = new AbortController();
    const pending = s.t.service.process({ agent: 'assistant', message: 'go', signal: controller.signal });
    while (s.server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    assert.equal((await pending).stopReason, 'aborted');
    await closed(s.server);
  }));

  test(`${d.provider} wire: a stream that goes silent is cut with ORYX_E_LLM_TIMEOUT, not retried once tokens were shown`, () => run([{ events: [d.piece('Hel')], hold: true }], d.idleTimeout(200), async (s) => {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
    assert.equal(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.deepEqual(tokens, ['Hel']);
    assert.equal(s.server.requests.length, 1);
    await s.server.closedEarlyOnce;
  }));

  test(`${d.provider} wire: a stream that keeps sending is not cut by the idle limit, however much longer than it the answer takes`, () => {
    const pieces = Array.from({ length: 16 }, (_, i) => `part${i} `);
    const events = d.stream(pieces, [5, 8]);
    // Each event 40 ms after the last: ~700 ms of streaming under a 400 ms idle limit.
    const paced = async (send: (item: unknown) => void) => {
      for (const event of events) { send(event); await new Promise((resolve) => setTimeout(resolve, 40)); }
    };
    return run([{ paced }], { ...d.idleTimeout(400), callTimeoutMs: 30_000 }, async (s) => {
      const tokens: string[] = [];
      const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
      assert.equal(r.error, undefined);
      assert.equal(r.answer, pieces.join(''));
      assert.deepEqual(tokens, pieces);
      assert.equal(s.server.requests.length, 1);
    });
  });

  test(`${d.provider} wire: a stream cut after tokens were shown is not retried, and the hint says what the session keeps`, () => run([{ events: [d.piece('Half an ans')], cut: true }, { events: [d.piece('never')] }], {}, async (s) => {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
    assert.deepEqual(tokens, ['Half an ans']);
    assert.equal(r.error?.code, 'ORYX_E_LLM_CONNECTION');
    assert.match(r.error!.hint!, /not retried/);
    assert.match(r.error!.hint!, /session keeps/);
    assert.equal(s.server.requests.length, 1);
    assert.deepEqual((await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message.content), ['go']);
  }));

  test(`${d.provider} wire: a stream that keeps sending past callTimeoutMs is cut at the cap and not retried`, () => run([{ trickle: d.piece('more '), everyMs: 20 }, { trickle: d.piece('never'), everyMs: 20 }], { ...d.idleTimeout(30_000), callTimeoutMs: 400 }, async (s) => {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'talk', stream: true, onEvent: tokensOf(tokens) });
    assert.equal(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, /callTimeoutMs \(400 ms\)/);
    assert.ok(tokens.length > 1, 'it was streaming steadily');
    assert.deepEqual(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_TIMEOUT', false]]);
  }));

  test(`${d.provider} wire: malformed tool arguments become an error result the model sees, and the loop goes on`, () => run([
    { json: d.answer({ toolCalls: [{ id: 'bad1', name: 'echo', args: '{"text": "oops' }] }) },
    { json: d.answer({ toolCalls: [{ id: 'good1', name: 'echo', args: { text: 'fixed' } }] }) },
    { json: d.answer({ content: 'recovered' }) },
  ], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(r.answer, 'recovered');
    assert.deepEqual(s.echo.calls, [{ text: 'fixed' }], 'the tool never ran with the broken arguments');
    const sent = JSON.stringify(s.server.requests[1]!.body);
    assert.ok(sent.includes('not valid JSON'), sent);
  }));

  test(`${d.provider} wire: an answer of the wrong shape is a final ORYX_E_LLM_BAD_RESPONSE`, () => run([{ json: { hello: 'world' } }], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(r.error?.code, 'ORYX_E_LLM_BAD_RESPONSE');
    assert.ok(r.error!.message.startsWith(`${label}: `), r.error!.message);
    assert.deepEqual(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_BAD_RESPONSE', false]]);
  }));

  test(`${d.provider} wire: an unreachable server is ORYX_E_LLM_UNREACHABLE naming the URL and the option that sets it`, async () => {
    const gone = await wireServer([], { framing: d.framing, basePath: d.basePath, side: d.side });
    await gone.close();
    const t = await testKernel({ plugins: [d.plugin(gone.url, { maxRetries: 0 })] });
    try {
      const r = await t.service.process({ agent: 'assistant', message: 'go' });
      assert.equal(r.error?.code, 'ORYX_E_LLM_UNREACHABLE');
      assert.ok(r.error!.message.includes(`could not reach ${gone.url}`), r.error!.message);
      assert.ok(r.error!.hint!.includes(d.urlOption), r.error!.hint);
    } finally { await t.close(); }
  });

  answerWireSuite(test, d, run);
}
