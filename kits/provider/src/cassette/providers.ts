import { appendFile, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage, type ChatRequest, type ChatResponse, type Provider, type StreamEvent, type FinishReason } from '@oryxos/provider-spec';
import type { PluginContext } from '@oryxos/kernel';
import {
  conversationKey, describe, divergence, findEntry, messageKey, parseCassette, promptDifference, recordResponse,
  type CassetteEntry, type LoadedEntry, type PromptPrint,
} from './format.ts';

/** What a cassette provider is: its name, its file, and what its messages tell people to do. */
export interface ReplaySettings {
  /** The provider name agents (or a run's `provider`) refer to. */
  name: string;
  /** The cassette as the user named it, for messages. */
  cassette: string;
  /** Absolute path of the cassette file. */
  file: string;
  target?: string;
  defaultModel?: string;
  /**
   * How to record the cassette, in the words of whoever configured it, for hints:
   * `set replay({ mode: 'record', cassette: 'smoke', target: '<provider>' }) and run again`.
   */
  howToRecord: string;
  /**
   * The stable parts of the prompt a request was made from, when the host knows them (from a
   * `prepareStep` tap): recorded with each line, and compared in replay with a line that has them.
   */
  promptOf?(request: ChatRequest): PromptPrint | undefined;
}

const aborted = (request: ChatRequest) => new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: request.signal?.reason });

/** Text split into word-sized deltas, as a streaming model would send it. */
export function splitText(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** A response's events, for `stream()` of a provider that answers whole. */
export function* eventsOf(response: ChatResponse): Iterable<StreamEvent> {
  for (const delta of splitText(response.message.content)) yield { type: 'text', delta };
  for (const call of response.message.toolCalls ?? []) yield { type: 'tool_call', call };
  yield { type: 'done', response };
}

/**
 * Replay mode: answers from the cassette, matching the conversation by content (user
 * messages, tool calls with arguments, tool result names and error flags), so it works across
 * runs of one session and across processes. The file is read again when it changes.
 */
export function replayProvider(settings: ReplaySettings): Provider & { preload(): Promise<void> } {
  let cache: { mtimeMs: number; size: number; entries: LoadedEntry[] } | undefined;
  const rel = () => path.relative(process.cwd(), settings.file) || settings.file;

  const load = async (): Promise<LoadedEntry[]> => {
    let info;
    try {
      info = await stat(settings.file);
    } catch {
      throw new OryxError('ORYX_E_REPLAY_CASSETTE_NOT_FOUND', `replay "${settings.name}": no cassette at ${rel()}`, {
        hint: `Record it first: ${settings.howToRecord}.`,
        data: { file: settings.file },
      });
    }
    if (!cache || cache.mtimeMs !== info.mtimeMs || cache.size !== info.size) {
      const entries = parseCassette(await readFile(settings.file, 'utf8'), rel());
      cache = { mtimeMs: info.mtimeMs, size: info.size, entries };
    }
    return cache.entries;
  };

  const answer = async (request: ChatRequest): Promise<ChatResponse> => {
    if (request.signal?.aborted) throw aborted(request);
    const entries = await load();
    const conversation = conversationKey(request.messages);
    const keys = conversation.map(messageKey);
    const entry = findEntry(entries, keys);
    if (!entry) throw diverged(entries, conversation, keys);
    const recorded = entry.request.prompt;
    const current = recorded ? settings.promptOf?.(request) : undefined;
    const changed = recorded && current ? promptDifference(recorded, current) : undefined;
    if (changed) {
      const where = `${rel()}:${entry.line}`;
      throw new OryxError('ORYX_E_REPLAY_DIVERGED', `replay "${settings.name}": the prompt differs from the recording (${where}): ${changed}`, {
        hint: `Re-record: ${settings.howToRecord} (the prompt changed, so the recorded answers may no longer be what the model says).`,
        data: { file: settings.file, line: entry.line, message: keys.length, prompt: changed },
      });
    }
    const calls = (entry.response.toolCalls ?? []).map((c) => ({
      // The global Web Crypto: node:crypto would load with the plugin, on every command (~3 ms).
      id: `call_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`,
      name: c.name,
      args: c.args ?? {},
      ...(c.argsError !== undefined ? { argsError: c.argsError } : {}),
    }));
    return {
      message: { role: 'assistant', content: entry.response.content ?? '', ...(calls.length ? { toolCalls: calls } : {}) },
      usage: { inputTokens: entry.response.usage?.inputTokens ?? 0, outputTokens: entry.response.usage?.outputTokens ?? 0 },
      finishReason: (entry.response.finishReason as FinishReason | undefined) ?? (calls.length ? 'tool_calls' : 'stop'),
      model: entry.model ?? request.model,
    };
  };

  const diverged = (entries: LoadedEntry[], conversation: ReturnType<typeof conversationKey>, keys: string[]): OryxError => {
    const d = divergence(entries, conversation, keys);
    const where = d.entry ? `${rel()}:${d.entry.line}` : rel();
    const detail = !d.entry
      ? 'the cassette is empty'
      : d.actual === undefined
        ? `the cassette has no answer after message ${d.index}; its closest line (${where}) goes on with ${describe(d.expected)}`
        : `first difference at message ${d.index + 1}: this run has ${describe(d.actual)}, the cassette (${where}) has ${describe(d.expected)}`;
    return new OryxError('ORYX_E_REPLAY_DIVERGED', `replay "${settings.name}": the conversation diverged from the recording: ${detail}`, {
      hint: `Re-record: ${settings.howToRecord} (appended lines win), or edit ${where}. System prompts, assistant text and tool output are not compared.`,
      data: { file: settings.file, line: d.entry?.line, message: d.index + 1 },
    });
  };

  return {
    name: settings.name,
    get defaultModel() { return settings.defaultModel ?? cache?.entries.findLast((e) => e.model)?.model ?? 'replay'; },
    /** Reads the cassette at start so the default model is known; a problem is reported at the first call. */
    async preload() { await load().catch(() => {}); },
    // A recording never changes on a second try.
    retry: { maxRetries: 0 },
    chat: answer,
    async *stream(request) {
      yield* eventsOf(await answer(request));
    },
    // A recording cannot answer a question it did not record: check the file itself.
    async check() {
      const entries = await load();
      if (!entries.length) {
        throw new OryxError('ORYX_E_REPLAY_CASSETTE_INVALID', `replay "${settings.name}": the cassette ${rel()} has no recorded answer`, {
          hint: `Record it: ${settings.howToRecord}.`, data: { file: settings.file },
        });
      }
      return `cassette ${rel()}: ${entries.length} recorded answer(s), well-formed; answers ${promptsOf(entries)}`;
    },
  };
}

/** The first user message of each recorded conversation, quoted, at most three shown. */
function promptsOf(entries: LoadedEntry[]): string {
  const prompts = [...new Set(entries.map((e) => e.request.messages.find((m) => m.role === 'user')).filter((m) => m !== undefined)
    .map((m) => (m as { content: string }).content))];
  const cut = (t: string) => JSON.stringify(t.length > 60 ? `${t.slice(0, 59)}…` : t);
  const shown = prompts.slice(0, 3).map(cut).join(', ');
  return prompts.length > 3 ? `${shown} and ${prompts.length - 3} more prompt(s)` : shown || 'no user prompt';
}

/**
 * Record mode: forwards each call to the target provider (looked up when called) and appends
 * the request's key and the response as one JSON line. Failed calls are not recorded; the
 * target's errors pass through unchanged, so the kernel retries them as usual.
 */
export function recordProvider(settings: ReplaySettings & { target: string }, kernel: Pick<PluginContext, 'provider'>): Provider {
  let writing: Promise<void> = Promise.resolve();
  const target = () => kernel.provider(settings.target);

  const save = (request: ChatRequest, response: ChatResponse): Promise<void> => {
    const prompt = settings.promptOf?.(request);
    const entry: CassetteEntry = {
      request: { messages: conversationKey(request.messages), ...(prompt ? { prompt } : {}) },
      response: recordResponse(response),
      model: response.model,
      recordedAt: new Date().toISOString(),
    };
    // Appends are chained so concurrent runs never interleave half lines.
    const next = writing.then(async () => {
      await mkdir(path.dirname(settings.file), { recursive: true });
      await appendFile(settings.file, `${JSON.stringify(entry)}\n`);
    });
    writing = next.catch(() => {});
    return next.catch((error) => {
      throw new OryxError('ORYX_E_REPLAY_CASSETTE_WRITE', `replay "${settings.name}": could not append to ${settings.file}: ${errorMessage(error)}`, {
        cause: error, hint: 'Check that the folder exists and is writable, or point cassette at another path.',
      });
    });
  };

  return {
    name: settings.name,
    get defaultModel() {
      try { return settings.defaultModel ?? target().defaultModel; } catch { return settings.defaultModel; }
    },
    get retry() {
      try { return target().retry; } catch { return undefined; }
    },
    async chat(request) {
      const response = await target().chat(request);
      await save(request, response);
      return response;
    },
    async *stream(request) {
      const provider = target();
      if (!provider.stream) {
        const response = await provider.chat(request);
        await save(request, response);
        yield* eventsOf(response);
        return;
      }
      for await (const event of provider.stream(request)) {
        if (event.type === 'done') {
          if (request.signal?.aborted) throw aborted(request);
          await save(request, event.response);
        }
        yield event;
      }
    },
  };
}
