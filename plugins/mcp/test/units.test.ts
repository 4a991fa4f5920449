// Small pure parts: tool names, allow-list matching, result conversion, env expansion.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { matchesToolPattern } from '@oryxos/schema-kit';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { exposedName, expandString, meaningfulLines, parseEnvFile, serverMayMatch, toToolResult } from '../src/index.ts';
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

test('toToolResult: images, audio and blobs also come as message parts (ImagePart / FilePart), named by where they came from', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
  const wav = Buffer.from('RIFF').toString('base64');
  const zip = Buffer.from('PK').toString('base64');
  const r = toToolResult({
    content: [
      { type: 'text', text: 'three things' },
      { type: 'image', mimeType: 'image/png', data: png },
      { type: 'audio', mimeType: 'audio/wav', data: wav },
      { type: 'resource', resource: { uri: 'file:///x.zip', mimeType: 'application/zip', blob: zip } },
      { type: 'resource', resource: { uri: 'file:///y.txt', text: 'inline' } },
    ],
  }, 'fs/read_media_file');
  assert.equal(r.parts, [
    { type: 'image', mediaType: 'image/png', data: png, name: 'mcp fs/read_media_file' },
    { type: 'file', mediaType: 'audio/wav', data: wav, name: 'mcp fs/read_media_file' },
    { type: 'file', mediaType: 'application/zip', data: zip, name: 'file:///x.zip' },
  ]);
  assert.is(r.content, 'three things\n[image: image/png, 4 bytes]\n[audio: audio/wav, 4 bytes]\n[resource: file:///x.zip, application/zip, 2 bytes]\n[resource: file:///y.txt]\ninline');
  assert.is(toToolResult({ content: [{ type: 'text', text: 'only text' }] }).parts, undefined);
});

test('meaningfulLines: the cause of a crash, without the stack, the source excerpt or Node\'s version line', () => {
  const crash = [
    'node:internal/modules/esm/resolve:873',
    '  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);',
    '        ^',
    '',
    "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /opt/srv/dist/index.js",
    '    at packageResolve (node:internal/modules/esm/resolve:873:9)',
    '    at moduleResolve (node:internal/modules/esm/resolve:946:18)',
    '{',
    "  code: 'ERR_MODULE_NOT_FOUND'",
    '}',
    '',
    'Node.js v20.20.2',
  ];
  assert.equal(meaningfulLines(crash), ["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /opt/srv/dist/index.js"]);
  const npm = ['npm error code E403', 'npm error 403 403 Forbidden - GET https://registry.example/pkg', 'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log'];
  assert.equal(meaningfulLines(npm), npm, 'npm\'s three lines all say something');
  assert.equal(meaningfulLines(['starting', 'listening on stdio']), ['starting', 'listening on stdio']);
  assert.equal(meaningfulLines(['    at x (y:1:2)', 'Node.js v20.1.0']), []);
});

test('parseEnvFile: KEY=value, export, comments, quotes', () => {
  assert.equal(parseEnvFile('# c\nexport A=1\nB = two # note\nC="q \\"x\\" y"\nD=\'single # kept\'\nnot a line\n'), { A: '1', B: 'two', C: 'q "x" y', D: 'single # kept' });
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
