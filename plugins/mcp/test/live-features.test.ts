// The client features beyond tools, against @modelcontextprotocol/server-everything (the
// reference server that exercises every feature): resources and prompts, the
// <server>__read_resource tool, tool titles and annotations, log notifications, elicitation,
// progress, images as parts, and the legacy HTTP+SSE transport.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '@oryxos/kernel/testing';
import type { McpElicitRequest, McpProgress } from '../src/index.ts';
import { EVERYTHING, NODE, freePort, mcpKernel, waitFor } from './helpers.ts';

const stdio = { command: NODE, args: [EVERYTHING, 'stdio'] };
let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

test('resources: listed with their templates and read; a server without them says so', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  const { resources, templates } = await m.resources('everything');
  const doc = resources.find((r) => r.uri === 'demo://resource/static/document/architecture.md');
  assert.ok(doc, resources.map((r) => r.uri).join(', '));
  assert.ok(templates.some((x) => x.uriTemplate === 'demo://resource/dynamic/text/{resourceId}'));
  const [content] = await m.readResource('everything', doc!.uri);
  assert.is(content!.uri, doc!.uri);
  assert.match(content!.text!, /architecture/i);
  const blob = await m.readResource('everything', 'demo://resource/dynamic/blob/3');
  assert.ok(blob[0]!.blob, 'a blob comes back as base64');
  const unknown = await m.readResource('everything', 'demo://resource/nope').catch((e) => e);
  assert.is(unknown.code, 'ORYX_E_MCP_REQUEST_FAILED');
  assert.match(unknown.message, /could not read demo:\/\/resource\/nope/);
});

test('prompts: listed with their arguments and filled in', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  const prompts = await m.prompts('everything');
  const args = prompts.find((p) => p.name === 'args-prompt')!;
  assert.equal(args.arguments.map((a) => [a.name, a.required]), [['city', true], ['state', false]]);
  const filled = await m.getPrompt('everything', 'args-prompt', { city: 'Paris', state: 'Texas' });
  assert.equal(filled.messages.map((x) => [x.role, x.content]), [['user', "What's weather in Paris, Texas?"]]);
});

test('<server>__read_resource is offered only to an agent that names it, and reads text and blobs', async () => {
  t = await mcpKernel({ servers: { everything: stdio } }, {
    agents: { globbing: { tools: ['everything__*'] }, reader: { tools: ['everything__echo', 'everything__read_resource'] } },
  });
  const globbing = await t.kernel.toolsFor(await t.kernel.agents.load('globbing'));
  assert.not.ok(globbing.some((x) => x.name === 'everything__read_resource'), 'a glob does not turn it on');
  const tools = await t.kernel.toolsFor(await t.kernel.agents.load('reader'));
  assert.equal(tools.map((x) => x.name).sort(), ['everything__echo', 'everything__read_resource']);
  const reader = tools.find((x) => x.name === 'everything__read_resource')!;
  assert.match(reader.description, /demo:\/\/resource\/static\/document\/architecture\.md/);
  assert.match(reader.description, /URI templates: .*demo:\/\/resource\/dynamic\/text\/\{resourceId\}/);
  const ctx = { signal: new AbortController().signal } as never;
  const text = await reader.execute({ uri: 'demo://resource/dynamic/text/1' }, ctx) as { content: string; isError: boolean };
  assert.match(text.content, /^\[resource: demo:\/\/resource\/dynamic\/text\/1\]\n/);
  const blob = await reader.execute({ uri: 'demo://resource/dynamic/blob/1' }, ctx) as { content: string; parts?: { type: string; data: string; name?: string }[] };
  assert.is(blob.parts?.length, 1);
  assert.is(blob.parts![0]!.name, 'demo://resource/dynamic/blob/1');
});

test('tool titles and annotations reach the model\'s description, and stay available as data', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  const echo = (await m.tools('everything')).find((x) => x.name === 'echo')!;
  assert.is(echo.title, 'Echo Tool');
  assert.equal(echo.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  assert.is(echo.description, 'Echoes back the input string\n(Echo Tool; read-only; idempotent: safe to repeat; closed world)');
  assert.is((await m.toolInfo('everything__echo'))?.annotations?.readOnlyHint, true);
  const agentTool = (await t.kernel.toolsFor(await t.kernel.agents.load('assistant'))).find((x) => x.name === 'everything__echo')!;
  assert.is(agentTool.description, echo.description);
});

test('images in a tool result become parts; the text keeps a placeholder', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const result = await t.kernel.service('mcp').call('everything', 'get-tiny-image');
  assert.match(result.content, /\[image: image\/png, \d+ bytes\]/);
  const image = result.parts?.find((p) => p.type === 'image');
  assert.ok(image, JSON.stringify(result.parts));
  assert.is(image!.mediaType, 'image/png');
  assert.is(Buffer.from(image!.data, 'base64').subarray(1, 4).toString(), 'PNG');
  assert.is(image!.name, 'mcp everything/get-tiny-image');
});

test('log notifications of a server are written to its log', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  await m.call('everything', 'toggle-simulated-logging');
  const log = m.status()[0]!.log!;
  const line = await waitFor(async () => /\] server: (debug|info|notice|warning|error|critical|alert|emergency)\b.*message/i.exec(await readFile(log, 'utf8'))?.[0], 'a log notification in the log');
  assert.ok(line);
});

test('elicitation: declared only with a handler; a request reaches onElicit with the call it belongs to; undefined is a clean cancel', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  // server-everything offers its elicitation tool only to clients that declare the capability.
  assert.not.ok((await m.tools('everything')).some((x) => x.name === 'trigger-elicitation-request'));
  await t.close();

  t = await mcpKernel({ servers: { everything: stdio } });
  const service = t.kernel.service('mcp');
  const asked: { server: string; request: McpElicitRequest; tools: string[] }[] = [];
  service.onElicit = (server, request, { calls }) => {
    asked.push({ server, request, tools: calls.map((c) => c.tool) });
    return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com' } };
  };
  assert.ok((await service.tools('everything')).some((x) => x.name === 'trigger-elicitation-request'));
  const accepted = await service.call('everything', 'trigger-elicitation-request');
  assert.is(accepted.isError, false, accepted.content);
  assert.match(accepted.content, /Ada Lovelace/);
  assert.match(accepted.content, /It was a dark and stormy night\./, 'a field left out got the schema\'s default');
  assert.equal(asked.map((a) => [a.server, a.tools]), [['everything', ['trigger-elicitation-request']]]);
  assert.match(asked[0]!.request.message, /provide inputs/);

  service.onElicit = () => undefined;
  const nobody = await service.call('everything', 'trigger-elicitation-request');
  assert.match(nobody.content, /cancel/i);
});

test('progress: each call asks for it (a progressToken) and onProgress sees the notifications', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const m = t.kernel.service('mcp');
  const perCall: McpProgress[] = [];
  const global: { server: string; tool: string; progress: number }[] = [];
  m.onProgress = (server, call, p) => { global.push({ server, tool: call.tool, progress: p.progress }); };
  const result = await m.call('everything', 'trigger-long-running-operation', { duration: 0.3, steps: 3 }, { onProgress: (p) => perCall.push(p) });
  assert.match(result.content, /Long running operation completed/);
  // The last notification races the result it comes just before: the SDK may drop it once the result is in.
  assert.ok(perCall.length >= 2, JSON.stringify(perCall));
  assert.equal(perCall.slice(0, 2), [{ progress: 1, total: 3 }, { progress: 2, total: 3 }]);
  assert.equal(global.map((g) => g.progress), perCall.map((p) => p.progress), 'the service-wide handler saw the same');
  assert.equal([...new Set(global.map((g) => `${g.server}/${g.tool}`))], ['everything/trigger-long-running-operation']);
});

test('progress keeps a long call alive past timeoutMs (time without progress), bounded by maxCallMs', async () => {
  t = await mcpKernel({ servers: { everything: { ...stdio, timeoutMs: 400 } }, maxCallMs: 5000 });
  const m = t.kernel.service('mcp');
  // 1.2 s in steps of 0.3 s: never 400 ms without progress.
  const ok = await m.call('everything', 'trigger-long-running-operation', { duration: 1.2, steps: 4 });
  assert.is(ok.isError, false, ok.content);
  // One step of 1 s: 400 ms pass without progress.
  const cut = await m.call('everything', 'trigger-long-running-operation', { duration: 1, steps: 1 });
  assert.is(cut.isError, true);
  assert.match(cut.content, /timed out after 400 ms without progress/);
});

test('the legacy HTTP+SSE transport (type: sse) against server-everything\'s sse mode', async () => {
  const port = await freePort();
  const child = spawn(NODE, [EVERYTHING, 'sse'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  try {
    await waitFor(() => /running on port/i.test(err) || child.exitCode !== null, 'server-everything (sse) to listen');
    t = await mcpKernel({ servers: { legacy: { type: 'sse', url: `http://127.0.0.1:${port}/sse` } } });
    const m = t.kernel.service('mcp');
    assert.is((await m.call('legacy', 'echo', { message: 'over sse' })).content, 'Echo: over sse');
    assert.is(m.status()[0]!.transport, 'sse');
    // The same URL as Streamable HTTP says what to change.
    await t.close();
    t = await mcpKernel({ servers: { wrong: { url: `http://127.0.0.1:${port}/sse` } } });
    const error = await t.kernel.service('mcp').connect('wrong').catch((e) => e);
    assert.match(error.message, /HTTP 40\d/);
    assert.match(error.message, /set type: sse/);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
