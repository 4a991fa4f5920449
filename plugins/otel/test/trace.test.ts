// One run through the real plugins, exported over OTLP/HTTP to a loopback collector: the model is
// a loopback server on OpenAI's wire (the real openai plugin calls it), the lead agent makes two
// tool calls at once (http_request to a loopback target, a tool of a Streamable HTTP MCP server
// built with the MCP SDK), hands a task to a sub-agent, is denied a write by the sandbox, and
// waits for a person's approval of another write (the approvals plugin on SQLite); approved, the
// run continues to its answer. The collector decodes the protobuf the exporter sends and the
// test checks the span tree, names, attributes and links against the GenAI semantic
// conventions (v1.41.0), and the `traceparent` the model server, the target and the MCP server got.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import mcp from '@oryxos/plugin-mcp';
import openai from '@oryxos/plugin-openai';
import sandbox from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import subagents from '@oryxos/plugin-subagents';
import tools from '@oryxos/plugin-tools';
import otel from '../src/index.ts';
import { mcpHttpServer } from './helpers/mcp-http-server.ts';
import { completion, modelServer, type WireMessage } from './helpers/model-server.ts';
import { otlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.ts';

/** A loopback HTTP target that records the headers of each request. */
async function target(): Promise<{ url: string; hits: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const hits: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => { hits.push(req.headers); res.writeHead(200, { 'content-type': 'text/plain' }).end('pong'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits,
    async close() { server.closeAllConnections(); await new Promise((r) => server.close(r)); },
  };
}

/** The lead's script, by how many tool results it has seen; the helper answers at once. */
function script(targetUrl: string) {
  return (messages: WireMessage[]) => {
    if (String(messages[0]?.content).includes('You help.')) return completion({ content: 'helped' });
    switch (messages.filter((m) => m.role === 'tool').length) {
      case 0: return completion({ calls: [{ id: 'call_http', name: 'http_request', args: { url: `${targetUrl}/ping` } }, { id: 'call_mcp', name: 'remote__echo', args: { text: 'hi' } }] });
      case 2: return completion({ calls: [{ id: 'call_agent', name: 'agent__helper', args: { task: 'help me' } }] });
      case 3: return completion({ calls: [{ id: 'call_denied', name: 'write_file', args: { path: 'secret/x.txt', content: 'no' } }] });
      case 4: return completion({ calls: [{ id: 'call_ask', name: 'write_file', args: { path: 'src/a.txt', content: 'yes' } }] });
      default: return completion({ content: 'all done' });
    }
  };
}

const one = (spans: ReceivedSpan[], test: (s: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
  const found = spans.filter(test);
  assert.is(found.length, 1, `exactly one ${what} (got ${found.length})`);
  return found[0]!;
};
const traceparent = (s: ReceivedSpan) => `00-${s.traceId}-${s.spanId}-01`;

test('a run with two tool calls, a sub-agent, a denial and an approval: the span tree, its names, attributes and links, and the traceparent each server got', async () => {
  const collector = await otlpReceiver();
  const http = await target();
  const mcpServer = await mcpHttpServer();
  const model = await modelServer(script(http.url));
  const t = await testKernel({
    plugins: [
      openai({ baseURL: model.url, apiKey: 'sk-test-key-0123456789', defaultModel: 'gpt-test' }),
      sqlite(),
      sandbox({ files: { read: ['.'], write: ['out'], ask: { write: ['src'] } }, http: { allow: [http.url, new URL(mcpServer.url).origin] } }),
      tools(),
      mcp({ servers: { remote: { url: mcpServer.url } } }),
      subagents(),
      approvals(),
      otel({ endpoint: collector.url, scheduledDelayMs: 20 }),
    ],
    agents: {
      lead: { description: 'Leads the work', tools: ['http_request', 'write_file', 'remote__*'], agents: ['helper'], body: 'You lead.' },
      helper: { description: 'Helps', tools: [], body: 'You help.' },
    },
  });
  let closed = false;
  try {
    const paused = await t.service.process({ agent: 'lead', message: 'go' });
    assert.is(paused.stopReason, 'suspended', JSON.stringify(paused));
    const approvalId = String(paused.suspended?.[0]?.data?.approvalId);
    await t.kernel.service('approvals').decide(approvalId, { decision: 'approve', by: 'tester' });
    const done = await t.service.continue(paused.runId);
    assert.is(done.answer, 'all done');
    await t.close();
    closed = true;
    const spans = collector.spans;

    // The tree.
    const runs = spans.filter((s) => s.name === 'invoke_agent lead');
    assert.is(runs.length, 2, 'the run and its continuation');
    const run = one(runs, (s) => s.attributes['oryx.run.id'] === paused.runId, 'first run');
    const resumed = one(runs, (s) => s.attributes['oryx.run.id'] === done.runId, 'continued run');
    assert.is(run.parentSpanId, '', 'a run started without a trace context is a root');
    const tool = (id: string) => one(spans, (s) => s.attributes['gen_ai.tool.call.id'] === id && s.name.startsWith('execute_tool '), `call ${id}`);
    const [httpCall, mcpCall, agentCall, deniedCall] = ['call_http', 'call_mcp', 'call_agent', 'call_denied'].map(tool);
    const asks = spans.filter((s) => s.attributes['gen_ai.tool.call.id'] === 'call_ask');
    assert.is(asks.length, 2, 'the call that waited, and the call that ran once approved');
    const waited = one(asks, (s) => s.parentSpanId === run.spanId, 'waiting call');
    const approved = one(asks, (s) => s.parentSpanId === resumed.spanId, 'approved call');
    for (const s of [httpCall, mcpCall, agentCall, deniedCall, waited]) {
      assert.is(s!.parentSpanId, run.spanId, `${s!.name} is a child of its run`);
      assert.is(s!.traceId, run.traceId);
    }
    const helper = one(spans, (s) => s.name === 'invoke_agent helper', 'sub-agent run');
    assert.equal([helper.parentSpanId, helper.traceId], [agentCall!.spanId, run.traceId], 'the sub-agent\'s run is a child of the agent__helper call');
    const chats = spans.filter((s) => s.name === 'chat gpt-test');
    assert.is(chats.length, 6, 'four model calls of the run, one of the sub-agent, one of the continuation');
    assert.equal(chats.map((c) => c.parentSpanId).sort(), [run.spanId, run.spanId, run.spanId, run.spanId, helper.spanId, resumed.spanId].sort());
    assert.equal(resumed.links.map((l) => [l.traceId, l.spanId, l.attributes['oryx.link.kind'], l.attributes['oryx.approval.id']]),
      [[waited.traceId, waited.spanId, 'continues', approvalId]], 'the continuation links to the call it continues');

    // Names and attributes (GenAI semantic conventions; oryx.* for what they do not name).
    assert.equal(run.kind, 1, 'INTERNAL: an agent in this process');
    assert.equal(pick(run.attributes, ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.agent.name', 'gen_ai.agent.description', 'gen_ai.request.model', 'gen_ai.conversation.id', 'oryx.run.stop_reason', 'oryx.run.iterations', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'oryx.budget.tool_calls']), {
      'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'openai', 'gen_ai.agent.name': 'lead', 'gen_ai.agent.description': 'Leads the work',
      'gen_ai.request.model': 'gpt-test', 'gen_ai.conversation.id': paused.sessionId, 'oryx.run.stop_reason': 'suspended', 'oryx.run.iterations': 4,
      'gen_ai.usage.input_tokens': 400, 'gen_ai.usage.output_tokens': 40, 'oryx.budget.tool_calls': paused.budget.toolCalls,
    });
    assert.equal([resumed.attributes['oryx.run.stop_reason'], resumed.attributes['oryx.run.continued']], ['final', true]);
    assert.equal([helper.attributes['oryx.run.parent_id'], helper.attributes['oryx.run.stop_reason']], [paused.runId, 'final']);
    const first = chats.find((c) => c.parentSpanId === run.spanId && c.startMs === Math.min(...chats.filter((x) => x.parentSpanId === run.spanId).map((x) => x.startMs)))!;
    assert.equal(first.kind, 3, 'CLIENT: a call to the model server');
    assert.equal(pick(first.attributes, ['gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.response.finish_reasons', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens', 'oryx.llm.attempts', 'gen_ai.conversation.id']), {
      'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-test', 'gen_ai.response.model': 'gpt-test-2026',
      'gen_ai.response.finish_reasons': ['tool_call'], 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10,
      'oryx.llm.attempts': 1, 'gen_ai.conversation.id': paused.sessionId,
    });
    assert.equal(one(chats, (c) => c.parentSpanId === resumed.spanId, 'last call').attributes['gen_ai.response.finish_reasons'], ['stop']);
    assert.equal(pick(httpCall!.attributes, ['gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.type', 'oryx.tool.source', 'oryx.tool.status', 'oryx.sandbox.decision']), {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'http_request', 'gen_ai.tool.type': 'function', 'oryx.tool.source': 'builtin', 'oryx.tool.status': 'ok', 'oryx.sandbox.decision': 'allow',
    });
    assert.equal(httpCall!.kind, 1);
    assert.equal([mcpCall!.name, mcpCall!.attributes['gen_ai.tool.type'], mcpCall!.attributes['oryx.tool.source']], ['execute_tool remote__echo', 'extension', 'mcp']);
    assert.equal([deniedCall!.attributes['oryx.tool.status'], deniedCall!.attributes['oryx.sandbox.decision'], deniedCall!.attributes['error.type'], deniedCall!.status.code], ['denied', 'deny', 'denied', 2]);
    assert.match(String(deniedCall!.attributes['oryx.tool.denied_reason']), /secret/);
    assert.equal([waited.attributes['oryx.tool.status'], waited.attributes['oryx.sandbox.decision']], ['suspended', 'ask']);
    assert.equal(waited.events.map((e) => [e.name, e.attributes['oryx.approval.id']]), [['oryx.approval.requested', approvalId]]);
    assert.match(String(waited.events[0]!.attributes['oryx.approval.reason']), /src/);
    assert.equal([approved.attributes['oryx.tool.status'], approved.attributes['oryx.sandbox.decision']], ['ok', 'ask']);
    const decided = approved.events.find((e) => e.name === 'oryx.approval.decided')!;
    assert.equal(pick(decided.attributes, ['oryx.approval.id', 'oryx.approval.decision', 'oryx.approval.decided_by']), { 'oryx.approval.id': approvalId, 'oryx.approval.decision': 'approved', 'oryx.approval.decided_by': 'tester' });
    assert.ok(Number(decided.attributes['oryx.approval.wait_ms']) >= 0);
    assert.ok(approved.events.some((e) => e.name === 'oryx.approval.granted'), 'the approved actions were granted');
    // Content is opt-in.
    for (const s of spans) for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) assert.not.ok(key in s.attributes, `${s.name} has ${key}`);
    // Who sent them.
    assert.equal([run.resource['service.name'], run.scope.name, run.schemaUrl], ['oryxos', '@oryxos/plugin-otel', 'https://opentelemetry.io/schemas/1.41.0']);
    assert.ok(collector.requests.every((r) => r.contentType === 'application/x-protobuf'), 'http/protobuf by default');

    // The trace context each server got is the span of the call it served.
    assert.equal(http.hits.map((h) => h.traceparent), [traceparent(httpCall!)], 'http_request carried its call\'s span');
    const mcpCalls = mcpServer.hits.filter((h) => h.rpc === 'tools/call');
    assert.equal(mcpCalls.map((h) => h.headers.traceparent), [traceparent(mcpCall!)], 'the MCP tools/call carried its call\'s span');
    const sent = model.requests.map((r) => r.headers.traceparent).sort();
    assert.equal(sent, chats.map(traceparent).sort(), 'each model request carried its chat span');
  } finally {
    if (!closed) await t.close();
    await Promise.all([collector.close(), http.close(), mcpServer.close(), model.close()]);
  }
});

function pick(attributes: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, attributes[k]]));
}

test.run();
