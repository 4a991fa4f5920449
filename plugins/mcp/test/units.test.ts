// Small pure parts: tool names, allow-list matching, result conversion, env expansion.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesToolPattern } from '@oryxos/kernel';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exposedName, expandString, serverMayMatch, toToolResult } from '../src/index.ts';
import { LinearReadBuffer } from '../src/read-buffer.ts';
import { replaceReadBuffer } from '../src/server.ts';

test('exposedName: <server>__<tool>, unsafe characters replaced, long names cut and kept unique', () => {
  assert.is(exposedName('github', 'create_issue'), 'github__create_issue');
  assert.is(exposedName('everything', 'get-sum'), 'everything__get-sum');
  assert.is(exposedName('x', 'a.b/c d'), 'x__a_b_c_d');
  const long1 = exposedName('server', 'a'.repeat(80) + '1');
  const long2 = exposedName('server', 'a'.repeat(80) + '2');
  for (const n of [long1, long2]) assert.ok(/^[A-Za-z0-9_-]{1,64}$/.test(n), n);
  assert.is.not(long1, long2);
});

test('serverMayMatch agrees with the kernel matcher on every name the server could have', () => {
  const servers = ['fs', 'filesystem', 'git-hub', 'a_b'];
  const patterns = ['*', 'filesystem__*', 'fs__read', 'file*', '*__read_file', 'read_file', 'git*__x', 'a_b__*', 'a__*', 'f*s__*', 'fs__'];
  const tools = ['read', 'read_file', 'x', 'list'];
  for (const server of servers) {
    for (const pattern of patterns) {
      const real = tools.some((tool) => matchesToolPattern(`${server}__${tool}`, pattern));
      // Never miss a server whose tools the pattern matches (it may over-approximate).
      if (real) assert.ok(serverMayMatch(pattern, server), `${pattern} should select ${server}`);
    }
  }
  assert.not.ok(serverMayMatch('read_file', 'filesystem'));
  assert.not.ok(serverMayMatch('github__*', 'filesystem'));
  assert.not.ok(serverMayMatch('a__*', 'a_b'));
  assert.not.ok(serverMayMatch('fs__', 'fs'));
});

test('toToolResult: text joined, binary summarised, resources, structured-only results, isError kept', () => {
  assert.equal(toToolResult({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }), { content: 'a\nb', isError: false });
  assert.equal(toToolResult({ content: [{ type: 'audio', mimeType: 'audio/wav', data: Buffer.from('abcd').toString('base64') }] }).content, '[audio: audio/wav, 4 bytes]');
  assert.equal(toToolResult({ content: [{ type: 'resource', resource: { uri: 'file:///x.txt', text: 'body' } }] }).content, '[resource: file:///x.txt]\nbody');
  assert.equal(toToolResult({ content: [{ type: 'resource', resource: { uri: 'file:///x.bin', mimeType: 'application/zip', blob: Buffer.from('zz').toString('base64') } }] }).content,
    '[resource: file:///x.bin, application/zip, 2 bytes]');
  assert.equal(toToolResult({ content: [{ type: 'resource_link', name: 'readme', uri: 'file:///README.md' }] }).content, '[resource link: readme file:///README.md]');
  assert.equal(toToolResult({ content: [], structuredContent: { n: 1 } }), { content: '{"n":1}', isError: false });
  assert.equal(toToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true }), { content: 'nope', isError: true });
  assert.equal(toToolResult({ content: [] }), { content: '(empty result)', isError: false });
});

test('expandString: set, default, escape, and a missing variable named with server and field', () => {
  const where = { server: 'remote', field: 'url', file: 'mcp_servers.yaml' };
  assert.is(expandString('${A}-${B:-b}-$${A}', { A: 'a' }, where), 'a-b-${A}');
  assert.is(expandString('${A:-x}', { A: '' }, where), 'x');
  try {
    expandString('https://${HOST}/mcp', {}, where);
    assert.unreachable('should throw');
  } catch (error) {
    const e = error as { code: string; message: string; hint: string };
    assert.is(e.code, 'ORYX_E_MCP_ENV_MISSING');
    assert.match(e.message, 'server "remote" uses ${HOST} in url');
    assert.match(e.hint, '${HOST:-default}');
  }
});

test('LinearReadBuffer: lines split across chunks, several per chunk, CRLF; a line past the limit throws and is dropped', () => {
  const b = new LinearReadBuffer(64);
  const msg = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: {} });
  const text = `${msg(1)}\r\n${msg(2)}\n${msg(3)}\n`;
  for (let i = 0; i < text.length; i += 7) b.append(Buffer.from(text.slice(i, i + 7)));
  assert.equal([b.readMessage(), b.readMessage(), b.readMessage(), b.readMessage()].map((m) => (m as { id?: number } | null)?.id ?? null), [1, 2, 3, null]);
  assert.throws(() => { b.append(Buffer.from('x'.repeat(40))); b.append(Buffer.from('y'.repeat(40))); }, /ReadBuffer exceeded maximum size of 64 bytes/);
  b.append(Buffer.from(`${msg(4)}\n`));
  assert.is((b.readMessage() as { id: number }).id, 4);
});

test('the SDK stdio transport still has the buffer field OryxOS replaces', () => {
  const transport = new StdioClientTransport({ command: 'true' });
  const buffer = new LinearReadBuffer(10);
  replaceReadBuffer(transport, buffer);
  assert.is((transport as unknown as { _readBuffer: unknown })._readBuffer, buffer);
  assert.throws(() => replaceReadBuffer({}, buffer), /no _readBuffer any more/);
});

test.run();
