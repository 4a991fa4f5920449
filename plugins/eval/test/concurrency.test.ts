// --concurrency runs cases at the same time, each on its own kernel, copy of the project and
// session: no message, tool result or fixture of one case reaches another's session.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testModel } from './helpers/model.ts';
import { evalProject } from './helpers/project.ts';

const N = 6;

test('concurrent cases never mix sessions', async () => {
  // Each case asks "Echo i"; the model reads notes/note.md (each case's own fixture), then echoes what it read.
  const model = await testModel(({ user, step, toolResults }) => {
    const m = /^Echo (\d+)$/.exec(user);
    if (!m) return undefined;
    return step === 0 ? { calls: [{ name: 'read_file', args: { path: 'notes/note.md' } }] } : { text: `echo ${m[1]}: ${toolResults.at(-1)?.content.trim()}` };
  }, { delayMs: 150 });
  const project = await evalProject({ modelUrl: model.url });
  try {
    const cases = Array.from({ length: N }, (_, i) => `- name: case ${i}\n  input: Echo ${i}\n  fixtures: { notes/note.md: "note of case ${i}" }\n  expect: { answer_equals: "echo ${i}: note of case ${i}" }\n`);
    await project.cases({ 'many.yaml': cases.join('') });
    const reports = await project.run({ concurrency: N, repeat: 2 });
    assert.ok(model.maxInFlight > 1, `runs overlapped (at most ${model.maxInFlight} at once)`);
    assert.equal(reports.map((r) => [r.name, r.status, r.runs, r.passed]), Array.from({ length: N }, (_, i) => [`case ${i}`, 'pass', 2, 2]));
    const sessions = reports.flatMap((r) => r.sessions);
    assert.is(new Set(sessions).size, N * 2, 'a session per run');
    const kernel = await project.kernel();
    try {
      const store = kernel.service('sessions');
      for (const [i, r] of reports.entries()) {
        for (const id of r.sessions) {
          const info = await store.get(id);
          assert.ok(info?.title.startsWith(`eval assistant/case ${i}`), info?.title);
          const messages = (await store.messages(id)).map((m) => m.message);
          assert.equal(messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant'], `session of case ${i}`);
          assert.is(messages[0]!.content, `Echo ${i}`);
          assert.match(messages[2]!.content, new RegExp(`note of case ${i}$`));
          assert.is(messages[3]!.content, `echo ${i}: note of case ${i}`);
        }
      }
    } finally {
      await kernel.close();
    }
  } finally {
    await model.close();
    await project.remove();
  }
});

test.run();
