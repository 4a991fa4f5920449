// `oryx chat`'s slash commands through the built CLI, with piped input (one line each): what
// people used to Claude Code's and Codex's chat type — /help, /new, /model, /agent, /sessions,
// /resume — changes what the next message runs with, and never reaches the model.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => {
  dir = await tempProject('cli-chat-commands-');
  // Each answer says which agent (its prompt), model and how many user messages the model saw.
  await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
const step = (req) => ({ text: 'agent=' + /You are ([a-z]+)/.exec(req.messages[0].content)?.[1] + ' model=' + req.model
  + ' users=' + req.messages.filter((m) => m.role === 'user').map((m) => m.content).join('+') });
export default defineConfig({ plugins: [scripted(Array.from({ length: 20 }, () => step)), sqlite()] });
`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {}, reviewer: {} });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

const chat = async (...lines: string[]) => {
  const r = await runOryx(['chat', '--no-stream'], { cwd: dir, input: `${lines.join('\n')}\n` });
  assert.is(r.code, 0, r.stderr);
  return r;
};

test('/help lists the commands; /model and /agent change the next run; /new forgets; a path is a message', async () => {
  const r = await chat('/help', 'one', '/model m2', 'two', '/model', '/agent reviewer', 'three', '/model -', '/new', 'four', '/etc/hosts what is it', '/nope');
  for (const c of ['/help', '/new', '/session', '/sessions', '/resume ID', '/agent NAME', '/model NAME', '/exit']) assert.ok(r.stdout.includes(`  ${c}`), c);
  const answers = r.stdout.split('\n').filter((l) => l.includes('> agent='));
  assert.equal(answers.map((l) => l.replace(/^\w+> /, '')), [
    'agent=assistant model=scripted-model users=one',
    'agent=assistant model=m2 users=one+two',
    'agent=reviewer model=m2 users=three',
    'agent=reviewer model=scripted-model users=four',
    'agent=reviewer model=scripted-model users=four+/etc/hosts what is it',
  ]);
  assert.match(r.stdout, /Model: m2 \(for this chat\)\./);
  assert.match(r.stdout, /Unknown command \/nope\. Commands:/);
});

test('/sessions lists this agent\'s sessions; /resume ID goes on with one, and its agent', async () => {
  await chat('/agent reviewer', 'first words');
  const listed = JSON.parse((await runOryx(['sessions', '--json'], { cwd: dir })).stdout);
  const id: string = listed.items.find((s: { agent: string }) => s.agent === 'reviewer').id;
  const r = await chat('/agent reviewer', '/sessions', `/resume ${id.slice(0, 8)}`, 'again', '/resume zzzzzzzz', 'still here');
  assert.match(r.stdout, new RegExp(`  ${id.slice(0, 8)}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  first words`));
  assert.match(r.stdout, new RegExp(`Resumed session ${id} with reviewer\\.`));
  assert.match(r.stdout, /agent=reviewer model=scripted-model users=first words\+again/);
  assert.match(r.stderr, /error ORYX_E_SESSION_NOT_FOUND: No session "zzzzzzzz"/);
  assert.match(r.stdout, /users=first words\+again\+still here/, 'a failed /resume leaves the chat where it was');
  const unknown = await chat('/agent nobody', 'hi');
  assert.match(unknown.stderr, /error ORYX_E_AGENT_NOT_FOUND/);
  assert.match(unknown.stdout, /agent=assistant/);
});

test.run();
