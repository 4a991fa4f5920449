// The prompt print of the cassette contract: what it covers, that it ignores key order, and how
// a difference reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCassette, promptDifference, promptPrint } from '../src/cassette/index.ts';

const tool = (name: string, description = 'd', inputSchema: unknown = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } }) => ({ name, description, inputSchema });

test('the print hashes each section and each tool; schema key order does not matter', async () => {
  const a = await promptPrint([{ id: 'agent', content: 'Be careful.' }], [tool('read_file')]);
  const b = await promptPrint([{ id: 'agent', content: 'Be careful.' }], [tool('read_file', 'd', { properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' })]);
  assert.equal(a, b);
  assert.match(a.system.agent!, /^[0-9a-f]{16}$/);
  assert.is(promptDifference(a, b), undefined);
});

test('a difference names what changed, what is new and what is gone', async () => {
  const was = await promptPrint([{ id: 'agent', content: 'Be careful.' }, { id: 'AGENTS.md', content: 'x' }], [tool('read_file'), tool('shell')]);
  const now = await promptPrint([{ id: 'agent', content: 'Be bold.' }, { id: 'skills', content: 's' }], [tool('read_file', 'other'), tool('write_file')]);
  assert.is(promptDifference(was, now), "the agent's instructions (the body of AGENT.md) changed; AGENTS.md is gone; the skill index is new; tool read_file changed; tool shell is gone; tool write_file is new");
});

test('a cassette line may carry a print; a malformed one is refused naming the line', () => {
  const ok = parseCassette('{"request":{"messages":[{"role":"user","content":"hi"}],"prompt":{"system":{"agent":"ab"},"tools":{}}},"response":{"content":"yo"}}\n', 'c.jsonl');
  assert.equal(ok[0]!.request.prompt, { system: { agent: 'ab' }, tools: {} });
  assert.throws(() => parseCassette('\n{"request":{"messages":[],"prompt":{"system":1}},"response":{}}\n', 'c.jsonl'), /c\.jsonl:2: request\.prompt must be/);
});

test.run();
