// `oryx run` and the commands that take a session id, as a person types them, through the built
// CLI on the sqlite store: unquoted words, whitespace-only messages, --provider/--model for one
// run, and short session ids (an ambiguous prefix lists the matches).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, testKernel, writeAgents } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';

let dir: string;
const oryx = (args: string[], input?: string) => runOryx(args, { cwd: dir, input });

test.before.each(async () => {
  dir = await tempProject('cli-run-');
  // Two providers that say who answered, with which model, to which message.
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
const says = (name) => scripted(Array.from({ length: 10 }, () => (req) => ({ text: name + ' ' + req.model + ': ' + req.messages.at(-1).content })), { name });
export default defineConfig({ defaultProvider: 'first', plugins: [says('first'), says('second'), sqlite()] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {}, other: {} });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('the words of an unquoted message are one message; an empty or whitespace-only one is refused, nothing stored', async () => {
  const words = await oryx(['run', 'List', 'the', 'files', 'here']);
  assert.is(words.code, 0, words.stderr);
  assert.is(words.stdout, 'first scripted-model: List the files here\n');
  const flagsAfter = await oryx(['run', 'List', 'them', '--json']);
  assert.is(JSON.parse(flagsAfter.stdout).answer, 'first scripted-model: List them');

  for (const [args, input, message] of [
    [['run', '   '], undefined, 'The message is only whitespace'],
    [['run', ''], undefined, 'No message given'],
    [['run', '-'], ' \n\t\n', 'No message given'],
  ] as const) {
    const r = await oryx([...args], input);
    assert.is(r.code, 2, JSON.stringify(args));
    assert.is(r.stderr.split('\n')[0], `error ORYX_E_CLI_USAGE: ${message}`);
  }
  const sessions = JSON.parse((await oryx(['sessions', '--json'])).stdout);
  assert.is(sessions.items.length, 2, 'only the two real messages made sessions');
});

test('--provider and --model override the agent\'s for one run', async () => {
  const [model, both, provider, unknown] = await Promise.all([
    oryx(['run', '--model', 'big-one', 'hi']),
    oryx(['run', '--provider', 'second', '--model', 'm2', 'hi']),
    oryx(['run', '--provider', 'second', 'hi']),
    oryx(['run', '--provider', 'thrid', 'hi']),
  ]);
  assert.is(model.stdout, 'first big-one: hi\n');
  assert.is(both.stdout, 'second m2: hi\n');
  assert.is(provider.stdout, 'second scripted-model: hi\n', "another provider's own default model");
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, 'error ORYX_E_PROVIDER_NOT_FOUND: No provider named "thrid"');
  const again = await oryx(['run', 'hi']);
  assert.is(again.stdout, 'first scripted-model: hi\n', 'the next run is back to the agent\'s');
});

test('short session ids work wherever a session id is taken; an ambiguous prefix lists the matches', async () => {
  const k = await testKernel({ plugins: [sqlite()], dir, agents: { assistant: {}, other: {} } });
  const store = k.kernel.service('sessions');
  await store.create({ agent: 'assistant', id: 'abcd1111-0000-4000-8000-000000000001', title: 'first' });
  await store.create({ agent: 'other', id: 'abcd2222-0000-4000-8000-000000000002', title: 'second' });
  await k.close({ keep: true });

  const ambiguous = await oryx(['sessions', 'show', 'abcd']);
  assert.is(ambiguous.code, 1);
  assert.match(ambiguous.stderr, /^error ORYX_E_CLI_AMBIGUOUS_ID: Session prefix "abcd" matches 2 sessions: abcd1111-0000-4000-8000-000000000001 \(assistant, [^)]+: first\); abcd2222-0000-4000-8000-000000000002 \(other, [^)]+: second\)/);
  assert.match(ambiguous.stderr, 'hint: Give more characters of the id');
  const runAmbiguous = await oryx(['run', '-s', 'abcd', 'hi']);
  assert.is(runAmbiguous.code, 1);
  assert.match(runAmbiguous.stderr, 'ORYX_E_CLI_AMBIGUOUS_ID');

  // The session's agent is the default with -s: no --agent needed for "other".
  const resumed = await oryx(['run', '-s', 'abcd2222', 'go', 'on', '--json']);
  assert.is(resumed.code, 0, resumed.stderr);
  assert.equal([JSON.parse(resumed.stdout).sessionId, JSON.parse(resumed.stdout).agent], ['abcd2222-0000-4000-8000-000000000002', 'other']);
  const chat = await oryx(['chat', '-s', 'abcd1'], 'hello\n/session\n');
  assert.is(chat.code, 0, chat.stderr);
  assert.match(chat.stdout, 'assistant> first scripted-model: hello');
  assert.match(chat.stdout, /^abcd1111-0000-4000-8000-000000000001$/m);
  const shown = JSON.parse((await oryx(['sessions', 'show', 'abcd2', '--json'])).stdout);
  assert.equal(shown.messages.map((m: { message: { content: string } }) => m.message.content), ['go on', 'first scripted-model: go on']);

  for (const id of ['abc', 'zzzz', 'abcd3']) {
    const missing = await oryx(['sessions', 'show', id]);
    assert.is(missing.code, 1, id);
    assert.match(missing.stderr, `error ORYX_E_SESSION_NOT_FOUND: No session "${id}"`);
  }
  const deleted = await oryx(['sessions', 'delete', 'abcd1', '--json']);
  assert.equal(JSON.parse(deleted.stdout), { id: 'abcd1111-0000-4000-8000-000000000001', deleted: true, messages: 2 });
  assert.is((await oryx(['sessions', 'show', 'abcd'])).code, 0, 'one match left: the prefix names it');
});

test.run();
