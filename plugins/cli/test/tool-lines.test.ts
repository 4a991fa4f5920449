// Off a terminal (a script, CI, a pipe) `oryx run` still says what each tool call did: one
// stderr line per call — name, short arguments, ok / denied / error and why — as the terminal
// shows it, unless --quiet (or --json, whose stdout a script reads).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => {
  dir = await tempProject('cli-tool-lines-');
  await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
export default defineConfig({
  plugins: [
    scripted([
      { toolCalls: [{ id: 'a', name: 'read_file', args: { path: 'notes.txt' } }] },
      { toolCalls: [{ id: 'b', name: 'write_file', args: { path: 'out.txt', content: 'x' } }] },
      { toolCalls: [{ id: 'c', name: 'read_file', args: { path: 'missing.txt' } }] },
      { text: 'all done' },
    ]),
    sandbox({ files: { read: ['.'] } }), tools({ include: ['read_file', 'write_file'] }), sqlite(),
  ],
});
`);
  await writeFile(path.join(dir, 'notes.txt'), 'hello\n');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['read_file', 'write_file'] } });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('one line per tool call on stderr: ok, denied with the reason, error with the reason', async () => {
  const r = await runOryx(['run', 'go'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'all done\n');
  const lines = r.stderr.split('\n').filter((l) => /^ {2}[✓⊘✗] /.test(l));
  assert.is(lines.length, 3, r.stderr);
  assert.match(lines[0]!, /^ {2}✓ read_file notes\.txt ok \d+ ms$/);
  assert.match(lines[1]!, /^ {2}⊘ write_file out\.txt x denied \d+ ms: write of "[^"]*out\.txt" is not allowed/);
  assert.match(lines[2]!, /^ {2}✗ read_file missing\.txt error \d+ ms: read_file: missing\.txt does not exist$/);
});

test('--quiet and --json print no tool lines', async () => {
  const quiet = await runOryx(['run', 'go', '--quiet'], { cwd: dir });
  assert.is(quiet.code, 0, quiet.stderr);
  assert.not.match(quiet.stderr, /read_file/);
  const json = await runOryx(['run', 'go', '--json'], { cwd: dir });
  assert.is(json.code, 0, json.stderr);
  assert.not.match(json.stderr, /read_file/);
});

test.run();
