// The package's promises about itself: the README's error table, options refused with their code, no SDK at load time.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { isOryxError } from '@oryxos/provider-spec';
import mcpServer, { ERROR_CODES, resolveOptions } from '../src/index.ts';

const root = path.resolve(import.meta.dirname, '..');

test('the README lists exactly the codes of ERROR_CODES, each with its fix', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

const code = (fn: () => unknown): string | undefined => {
  try { fn(); } catch (error) { return isOryxError(error) ? `${error.code}: ${error.message}` : String(error); }
  return undefined;
};

test('options: names, or names with their tool name and description; each tool name checked', () => {
  assert.equal(resolveOptions({ agents: ['assistant', 'my agent'] }).agents, [
    { agent: 'assistant', tool: 'ask_assistant' }, { agent: 'my agent', tool: 'ask_my_agent' },
  ]);
  assert.equal(resolveOptions({ agents: { coder: { name: 'code', description: 'Writes code.' } } }), {
    agents: [{ agent: 'coder', tool: 'code', description: 'Writes code.' }], serverName: 'oryxos', askTimeoutMs: 300_000, graceMs: 10_000, httpIdleMs: 1_800_000,
    tools: [], toolAgent: 'coder', prompts: [], sessions: false, memory: false, sources: [],
  });
  assert.equal([resolveOptions({ agents: ['a'], http: true }).httpPath, resolveOptions({ agents: ['a'], http: { path: '/x/mcp', idleMs: 5000 } })], [
    '/mcp', { agents: [{ agent: 'a', tool: 'ask_a' }], serverName: 'oryxos', askTimeoutMs: 300_000, graceMs: 10_000, httpPath: '/x/mcp', httpIdleMs: 5000, tools: [], toolAgent: 'a', prompts: [], sessions: false, memory: false, sources: [] },
  ]);
  assert.match(code(() => mcpServer({ agents: ['a'], http: { path: 'mcp' } }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*http/);
  assert.match(code(() => mcpServer({} as never))!, /^ORYX_E_MCPSERVE_OPTIONS: .*agents/);
  assert.match(code(() => mcpServer({ agents: ['a'], grace: 5 } as never))!, /^ORYX_E_MCPSERVE_OPTIONS: .*grace/);
  assert.match(code(() => mcpServer({ agents: ['a'], askTimeoutMs: 10 }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*askTimeoutMs/);
  assert.match(code(() => mcpServer({ agents: [] }))!, /^ORYX_E_MCPSERVE_NO_AGENTS: /);
  assert.match(code(() => mcpServer({ agents: {} }))!, /^ORYX_E_MCPSERVE_NO_AGENTS: /);
  assert.match(code(() => mcpServer({ agents: { a: { name: 'has space' } } }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"has space"/);
  assert.match(code(() => mcpServer({ agents: ['a', 'a'] }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"a" is listed twice/);
  assert.match(code(() => mcpServer({ agents: { a: {}, b: { name: 'ask_a' } } }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"a" and "b" would both be the tool "ask_a"/);
});

test('options: exposed tools, prompts and resources, each by name and off by default', () => {
  const source = { name: 'docs', list: async () => [], read: async () => undefined };
  const o = resolveOptions({ agents: ['a', 'b'], tools: ['read_file'], toolAgent: 'b', prompts: ['review'], resources: ['sessions', source] });
  assert.equal([o.tools, o.toolAgent, o.prompts, o.sessions, o.memory, o.sources], [['read_file'], 'b', ['review'], true, false, [source]]);
  assert.is(resolveOptions({ agents: ['a', 'b'], tools: ['x'] }).toolAgent, 'a', 'the first agent by default');
  assert.match(code(() => mcpServer({ agents: ['a'], tools: ['ask_a'] }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"ask_a", which is already the tool of agent "a"/);
  assert.match(code(() => mcpServer({ agents: ['a'], tools: ['x', 'x'] }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"x" twice/);
  assert.match(code(() => mcpServer({ agents: ['a'], tools: ['bad name'] }))!, /^ORYX_E_MCPSERVE_TOOL_NAME: .*"bad name"/);
  assert.match(code(() => mcpServer({ agents: ['a'], tools: ['x'], toolAgent: 'z' }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*toolAgent "z" is not one of agents/);
  assert.match(code(() => mcpServer({ agents: ['a'], prompts: ['p', 'p'] }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*"p" twice/);
  assert.match(code(() => mcpServer({ agents: ['a'], resources: ['files' as never] }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*resources/);
  assert.match(code(() => mcpServer({ agents: ['a'], resources: [{ name: 'x' } as never] }))!, /^ORYX_E_MCPSERVE_OPTIONS: .*resources/);
});

test('no module loaded by the entry point imports the MCP SDK or zod at the top level', async () => {
  const seen = new Set<string>();
  const visit = async (file: string): Promise<void> => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
      const spec = m[1]!;
      assert.not.ok(/^@modelcontextprotocol\/|^zod$/.test(spec), `${path.relative(root, file)} imports ${spec} statically`);
      if (spec.startsWith('.')) await visit(path.resolve(path.dirname(file), spec));
    }
  };
  await visit(path.join(root, 'src', 'index.ts'));
  await visit(path.join(root, 'src', 'door.ts'));
  assert.ok(seen.size >= 4, [...seen].join(', '));
});

test.run();
