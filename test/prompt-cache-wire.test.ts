// Prompts a provider can cache, on the real providers' wire (issue 37): the built `oryx run`
// against loopback servers speaking OpenAI chat completions, Ollama /api/chat and Anthropic
// messages. What the server received keeps the prefix property (each request starts with the
// one before), and the cached tokens the server reports reach the run footer, `oryx runs`,
// `oryx audit llm`, `oryx audit summary` and the REST API; a server that reports none gives
// null or no field, never 0. Build first (`npm test` does).
//
// Usage fields from the providers' public API references: OpenAI "Prompt caching"
// (usage.prompt_tokens_details.cached_tokens), Anthropic "Prompt caching"
// (usage.cache_read_input_tokens / cache_creation_input_tokens; input_tokens counts only what
// came after the last breakpoint), Ollama /api/chat (prompt_eval_count, no cache figure).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel } from '@oryxos/kernel';
import { prefixKept, runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { loadConfig } from '@oryxos/command-kit';
import type { WireServer } from '@oryxos/provider-kit/testing';
import { completion, openaiServer } from '../plugins/openai/test/helpers/openai-server.ts';
import { chatResponse, ollamaServer } from '../plugins/ollama/test/helpers/ollama-server.ts';
import { anthropicServer, message } from '../plugins/anthropic/test/helpers/anthropic-server.ts';

const TOKEN = 'prompt-cache-wire-token-0123456789';
/** A zone a step (the same call three times in a row would be a loop). */
const ZONES = ['UTC', 'Europe/Paris', 'Asia/Tokyo', 'America/New_York'];

/** A request body as the provider's cache reads it: tools, then the system prompt (Anthropic's own field), then each message. */
function wireText(body: any): string {
  // Anthropic's cache matches the blocks up to a breakpoint, not the marker: the marker moves to the newest turn by design.
  const unmarked = JSON.parse(JSON.stringify(body), (key, value) => (key === 'cache_control' ? undefined : value));
  return [JSON.stringify(unmarked.tools ?? []), ...(unmarked.system ? [JSON.stringify(unmarked.system)] : []), ...unmarked.messages.map((m: unknown) => JSON.stringify(m))].join('\n');
}

/** How many characters two texts share from the start. */
function common(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
  return n;
}

interface Wire {
  name: 'openai' | 'ollama' | 'anthropic';
  start(reply: (body: any, index: number) => unknown): Promise<WireServer>;
  plugin(url: string): string;
  /** What the server answers: a tool call or a text, and the usage it reports. */
  answer(input: { call?: string; zone?: string; text?: string; total: number; cached: number }): unknown;
  /** Tool results since the person's last words, and whether the last message is the person's. */
  progress(body: any): number;
  reportsCache: boolean;
}

const wires: Wire[] = [
  {
    name: 'openai', reportsCache: true,
    start: (reply) => openaiServer(Array.from({ length: 20 }, () => (body: any, i: number) => ({ json: reply(body, i) }))),
    plugin: (url) => `openai({ baseURL: '${url}', apiKey: 'sk-test', defaultModel: 'gpt-test' })`,
    answer: ({ call, zone, text, total, cached }) => completion({
      content: text ?? null, ...(call ? { toolCalls: [{ id: call, name: 'current_time', args: { timezone: zone } }] } : {}), usage: [total, 7], cache: { read: cached },
    }),
    progress: (body) => body.messages.length - 1 - body.messages.findLastIndex((m: any) => m.role === 'user'),
  },
  {
    name: 'ollama', reportsCache: false,
    start: (reply) => ollamaServer(Array.from({ length: 20 }, () => (body: any, i: number) => ({ json: reply(body, i) }))),
    plugin: (url) => `ollama({ host: '${url}', defaultModel: 'qwen-test' })`,
    answer: ({ call, zone, text, total }) => chatResponse({ content: text ?? '', ...(call ? { toolCalls: [{ name: 'current_time', args: { timezone: zone } }] } : {}), usage: [total, 7] }),
    progress: (body) => body.messages.length - 1 - body.messages.findLastIndex((m: any) => m.role === 'user'),
  },
  {
    name: 'anthropic', reportsCache: true,
    start: (reply) => anthropicServer(Array.from({ length: 20 }, () => (body: any, i: number) => ({ json: reply(body, i) }))),
    plugin: (url) => `anthropic({ baseURL: '${url}', apiKey: 'sk-ant-test', defaultModel: 'claude-test' })`,
    answer: ({ call, zone, text, total, cached }) => message({
      content: text, ...(call ? { toolCalls: [{ id: call, name: 'current_time', args: { timezone: zone } }] } : {}), usage: [total, 7], cache: { read: cached, write: total - cached },
    }),
    // A tool result is a user message of tool_result blocks; the person's words are text.
    progress: (body) => body.messages.length - 1 - body.messages.findLastIndex((m: any) => m.role === 'user' && !(Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_result'))),
  },
];

for (const wire of wires) {
  test(`${wire.name}: 4 tool steps and 2 more turns through oryx run keep the prefix on the wire; cached tokens reach every view`, async () => {
    const texts: string[] = [];
    const reported: number[] = [];
    // The model: "steps" asks for four current_time calls, one a step; anything else is answered. The
    // cached tokens it reports are the characters it shares with the request before, at four a token.
    const server = await wire.start((body, i) => {
      const text = wireText(body);
      const cached = texts.length ? Math.floor(common(texts.at(-1)!, text) / 4) : 0;
      texts.push(text);
      reported.push(cached);
      const steps = wire.progress(body);
      const person = JSON.stringify(body.messages.at(-steps - 1));
      const total = Math.ceil(text.length / 4);
      return person.includes('steps') && steps < 8 ? wire.answer({ call: `call_${i + 1}`, zone: ZONES[steps / 2], total, cached }) : wire.answer({ text: `answer ${i + 1}`, total, cached });
    });
    const dir = await tempProject(`prompt-cache-${wire.name}-`);
    try {
      await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import ${wire.name} from '@oryxos/plugin-${wire.name}';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import web from '@oryxos/plugin-web';
export default defineConfig({ plugins: [${wire.plugin(server.url)}, tools({ include: ['current_time'] }), sqlite(), audit(), web({ token: '${TOKEN}' })] });
`);
      await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['current_time'], body: `You help. ${'Be precise. '.repeat(40)}` } });
      const oryx = (args: string[]) => runOryx(args, { cwd: dir, env: { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, OLLAMA_HOST: undefined } });

      const first = await oryx(['run', '-v', 'take four steps']);
      assert.is(first.code, 0, first.stderr);
      const footer = first.stderr.trim().split('\n').at(-1)!;
      const sessionId = /^session (\S+) · /.exec(footer)?.[1];
      assert.ok(sessionId, footer);
      for (const ask of ['thanks', 'and one more thing']) {
        const r = await oryx(['run', '--session', sessionId!, '--json', ask]);
        assert.is(r.code, 0, r.stderr);
      }
      assert.is(texts.length, 5 + 2, 'five requests for the run with four tool steps, one for each turn after');

      // The prefix property, on what the server received.
      const kept = prefixKept(texts);
      assert.ok(kept.every((k) => k >= 0.99), `kept: ${kept.map((k) => k.toFixed(3)).join(' ')}`);

      // The figures the server reported, everywhere; a server that reports none: null or no field.
      const firstRun = reported.slice(0, 5).reduce((a, b) => a + b, 0);
      assert.match(footer, {
        openai: new RegExp(`· \\d+ in \\(${firstRun} cached\\) / \\d+ out tokens$`),
        anthropic: new RegExp(`· \\d+ in \\(${firstRun} cached, \\d+ written to cache\\) / \\d+ out tokens$`),
        ollama: /· \d+ in \/ \d+ out tokens$/,
      }[wire.name]);
      const runs = JSON.parse((await oryx(['runs', '--json'])).stdout).items as { cacheReadTokens?: number; runId: string }[];
      assert.equal(runs.map((r) => r.cacheReadTokens), wire.reportsCache ? [reported[6], reported[5], firstRun] : [undefined, undefined, undefined]);
      const calls = JSON.parse((await oryx(['audit', 'llm', '--json'])).stdout).items as { cacheReadTokens: number | null; cacheWriteTokens: number | null }[];
      assert.equal(calls.map((c) => c.cacheReadTokens).reverse(), wire.reportsCache ? reported : reported.map(() => null));
      if (wire.name === 'anthropic') assert.ok(calls.every((c) => typeof c.cacheWriteTokens === 'number' && c.cacheWriteTokens > 0));
      else assert.ok(calls.every((c) => c.cacheWriteTokens === null));
      const table = (await oryx(['audit', 'llm'])).stdout.split('\n');
      assert.match(table[0]!, /\bCACHED\b/);
      const summary = JSON.parse((await oryx(['audit', 'summary', '--json'])).stdout).items as { cacheReadTokens: number | null }[];
      assert.equal(summary.map((s) => s.cacheReadTokens), [wire.reportsCache ? reported.reduce((a, b) => a + b, 0) : null]);

      // The REST API: the session's run records and its timeline.
      const config = await loadConfig({ file: path.join(dir, 'oryx.config.ts') });
      const kernel = await new Kernel({ config: config! }).start();
      try {
        const { url } = await (kernel.service('web' as never) as { listen(o: { port: number }): Promise<{ url: string }> }).listen({ port: 0 });
        const get = async (route: string) => {
          const res = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${TOKEN}` } });
          assert.is(res.status, 200, route);
          return res.json() as Promise<any>;
        };
        const session = await get(`/api/sessions/${sessionId}`);
        assert.equal(session.runs.map((r: any) => r.cacheReadTokens), runs.map((r) => r.cacheReadTokens));
        const trace = await get(`/api/sessions/${sessionId}/trace`);
        assert.is(trace.totals.cacheReadTokens, wire.reportsCache ? reported.reduce((a, b) => a + b, 0) : undefined);
      } finally {
        await kernel.close();
      }

      if (wire.name === 'anthropic') {
        // Breakpoints within the API's four: the last tool, the system prompt, the two latest user turns.
        for (const r of server.requests) {
          const body = r.body;
          const marks = JSON.stringify(body).split('"cache_control"').length - 1;
          assert.ok(marks <= 4, `${marks} breakpoints`);
          assert.ok(body.tools.at(-1).cache_control && body.system.at(-1).cache_control);
          assert.ok(body.messages.at(-1).content.at(-1).cache_control, 'the growing end of the history');
        }
      }
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test.run();
