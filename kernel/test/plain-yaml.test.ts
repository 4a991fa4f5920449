import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDocument } from 'yaml';
import { parsePlainYaml } from '../src/plain-yaml.ts';

/** What the real parser makes of a text, read as frontmatter is (core schema, no custom tags, unique keys). */
function real(text: string): { ok: true; data: unknown } | { ok: false } {
  const doc = parseDocument(text, { schema: 'core', resolveKnownTags: false, customTags: [], merge: false, uniqueKeys: true });
  if (doc.errors.length || doc.warnings.length) return { ok: false };
  return { ok: true, data: doc.toJS({ maxAliasCount: 100 }) ?? {} };
}

test('the texts agents and MCP files are written in are read plainly, as the real parser reads them', () => {
  const texts = [
    'description: A general assistant that reads this project\'s files and remembers what matters.\ntools: [read_file, list_dir, current_time, save_memory, recall_memory]\nsettings:\n  max_iterations: 10\n  max_history_turns: 20\n  context_tokens: 32000\n  max_tool_output_chars: 60000',
    '# MCP servers whose tools agents may use (as <server>__<tool>). See plugins/mcp/README.md.\nservers: {}',
    'servers:\n  fs:\n    command: npx\n    args:\n      - -y\n      - server\n    enabled: false\n',
    'tools:\n- read_file\n- shell\nprovider: openai\nmodel: gpt-4o-mini\nsettings:\n  loop_detection: false\n  parallel_tools: true\n  pending_approval: deny\n',
    'description: C# and F# notes, 50% done\nname: ~\nlimit: -3\nratio: 0.25\nempty:\nlist: []\n',
    '# only a comment\n\n',
  ];
  for (const text of texts) {
    const plain = parsePlainYaml(text);
    const expected = real(text);
    assert.ok(plain !== undefined, `not read plainly: ${text}`);
    assert.ok(expected.ok, text);
    assert.equal(plain, expected.ok ? expected.data : undefined, text);
  }
});

test('anything outside the plain subset is left to the real parser', () => {
  for (const text of [
    'name: "quoted"', "name: 'quoted'", 'text: |\n  block', 'text: >\n  folded', 'a: &x 1\nb: *x', 'a: !!str 1', 'a: 1 # comment',
    'a: 1\na: 2', 'a: 1e3', 'a: .5', 'a: 0x1f', 'a: 1_000', 'a: .inf', 'a:\n\t- x', 'a: one\n  two', 'a: [x, [y]]', 'a: [x, "y"]',
    'a: {b: 1}', '- x\n- y', 'a: b: c', 'a: x:', '---\na: 1', '__proto__: 1', 'null: 1', 'true: x', ' a: 1', 'a:\n  b: 1\n c: 2', 'a: -.5', 'a: - x', 'a: 12345678901234567890',
  ]) {
    assert.is(parsePlainYaml(text), undefined, text);
  }
});

test('on generated documents, whatever is read plainly is exactly what the real parser reads', () => {
  const words = ['x', 'read_file', 'A b c', "it's", 'C#', '50%', 'a:b', 'a: b', 'a #b', '0', '7', '-3', '1.5', '007', '-0', '1e3', '.5', '+1', 'true', 'False', 'NULL', '~', 'yes', 'no', 'on', '"q"', "'q'", '[x]', '{}', '[]', '', '-', '- x', '&a', '*a', '!t', '|', '>', '@x', '%x', '`x`', 'é', 'x\u2028y', 'Infinity', 'NaN', '.nan', '0o7', '0x1', '1_0', 'x ', ' x', '-y', '--flag', '-.5', '-1.5'];
  const keys = ['a', 'b', 'max_tokens', 'tools', 'null', 'key-x', '_k', 'True'];
  let seed = 42;
  const rand = (n: number) => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed % n; };
  const pick = <T>(list: T[]) => list[rand(list.length)]!;
  const value = (indent: string, depth: number): string => {
    switch (rand(depth > 1 ? 3 : 5)) {
      case 0: case 1: return ` ${pick(words)}`;
      case 2: return ` [${Array.from({ length: rand(3) }, () => pick(words)).join(', ')}]`;
      case 3: return `\n${Array.from({ length: 1 + rand(3) }, () => `${indent}  - ${pick(words)}`).join('\n')}`;
      default: return `\n${mapping(`${indent}  `, depth + 1)}`;
    }
  };
  const mapping = (indent: string, depth: number): string =>
    Array.from({ length: 1 + rand(3) }, () => `${indent}${pick(keys)}:${value(indent, depth)}`).join('\n');
  let plainCount = 0;
  for (let n = 0; n < 3000; n++) {
    const text = mapping('', 0);
    const plain = parsePlainYaml(text);
    if (plain === undefined) continue;
    plainCount++;
    const expected = real(text);
    assert.ok(expected.ok, `read plainly, but the real parser refuses it:\n${text}`);
    assert.equal(plain, expected.ok ? expected.data : undefined, text);
  }
  assert.ok(plainCount > 100, `only ${plainCount} generated documents were plain`);
});

test.run();
