// Typos caught through the built CLI, each with its suggestion: a mistyped command, a config
// key, an AGENT.md key (top level and in settings), a nested plugin option and a tool name.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
const oryx = (args: string[]) => runOryx(args, { cwd: dir });

const config = (body: string) => writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
import sandbox from '@oryxos/plugin-sandbox';
${body}`);

test.before.each(async () => { dir = await tempProject('cli-typos-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

test('a mistyped command: "did you mean", exit 2, nothing run; words of the same depth are compared', async () => {
  const cases: [string[], string][] = [
    [['sesions'], '"sesions" is not an oryx command (did you mean "sessions"?)'],
    [['agnets'], '"agnets" is not an oryx command (did you mean "agents"?)'],
    [['sessions', 'shwo', '3f2a9c1e'], '"sessions shwo 3f2a9c1e" is not an oryx command (did you mean "sessions show"?)'],
    [['audti', 'tools'], '"audti tools" is not an oryx command (did you mean "audit tools"?)'],
    [['schedule', 'lst'], '"schedule lst" is not an oryx command (did you mean "schedule list"?)'],
  ];
  const results = await Promise.all(cases.map(([args]) => oryx(args)));
  for (const [i, [args, message]] of cases.entries()) {
    const r = results[i]!;
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stdout, '');
    const [first, hint] = r.stderr.trimEnd().split('\n');
    assert.is(first, `error ORYX_E_CLI_UNKNOWN_COMMAND: ${message}`);
    assert.match(hint!, /^ {2}hint: Run `oryx [a-z ]+ --help`/);
  }
  const far = await oryx(['xyzzy']);
  assert.is(far.code, 2);
  assert.is(far.stderr, 'error ORYX_E_CLI_UNKNOWN_COMMAND: "xyzzy" is not an oryx command\n  hint: Run `oryx help` for the list of commands.\n', 'no wild guess');
  const json = await oryx(['sesions', '--json']);
  assert.is(json.code, 2);
  assert.equal(JSON.parse(json.stdout).error.code, 'ORYX_E_CLI_UNKNOWN_COMMAND');
});

test('config and AGENT.md typos name the file, the line, the closest key and the known ones', async () => {
  await config(`export default defineConfig({\n  defaultAgnet: 'assistant',\n  plugins: [scripted([{ text: 'hi' }])],\n});\n`);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: {} });
  const top = await oryx(['run', 'hi']);
  assert.is(top.code, 1);
  assert.match(top.stderr, /^error ORYX_E_CONFIG_INVALID: oryx\.config\.ts:6: unknown key "defaultAgnet" \(did you mean "defaultAgent"\?\) \(known options: plugins, defaultAgent/);

  await config(`export default defineConfig({ plugins: [scripted([{ text: 'hi' }]), tools(), sandbox({ files: { raed: ['.'] } })] });\n`);
  const nested = await oryx(['run', 'hi']);
  assert.is(nested.code, 1);
  assert.match(nested.stderr, 'files.raed');
  assert.match(nested.stderr, 'did you mean "read"?');

  await config(`export default defineConfig({ plugins: [scripted([{ text: 'hi' }]), tools()] });\n`);
  await writeAgents(path.join(dir, '.oryxos'), {
    assistant: '---\ndescription: fine\n---\nok\n',
    sloppy: '---\ndescripton: typo\n---\nbody\n',
    limits: '---\ndescription: x\nsettings:\n  max_iteration: 3\n---\nbody\n',
    tooly: '---\ndescription: x\ntools: [list_dirr]\n---\nbody\n',
  });
  const agents = await oryx(['agents']);
  assert.is(agents.code, 1, 'a broken AGENT.md makes the exit status say so');
  const rows = agents.stdout.split('\n');
  assert.ok(rows.some((l) => /^assistant\s/.test(l) && l.includes('fine')), agents.stdout);
  assert.ok(rows.some((l) => /^sloppy\s/.test(l) && l.includes('BROKEN (ORYX_E_AGENT_INVALID)')), agents.stdout);
  assert.ok(rows.some((l) => /^limits\s/.test(l) && l.includes('BROKEN')), agents.stdout);
  assert.match(agents.stderr, /sloppy\/AGENT\.md:2: unknown key "descripton" \(did you mean "description"\?\)/);
  assert.match(agents.stderr, /limits\/AGENT\.md:4: unknown key "max_iteration" in settings \(did you mean "max_iterations"\?\)/);
  assert.match(agents.stderr, 'hint: 2 of 4 agent(s) cannot be loaded');

  const json = await oryx(['agents', '--json']);
  assert.is(json.code, 1);
  const byName = Object.fromEntries(JSON.parse(json.stdout).items.map((a: { name: string }) => [a.name, a]));
  assert.is(byName.assistant.error, undefined);
  assert.is(byName.sloppy.error.code, 'ORYX_E_AGENT_INVALID');
  assert.equal(Object.keys(byName).sort(), ['assistant', 'limits', 'sloppy', 'tooly']);

  const tool = await oryx(['run', '-a', 'tooly', 'hi']);
  assert.is(tool.code, 1);
  assert.match(tool.stderr, 'tool "list_dirr" is not provided by any enabled plugin (did you mean "list_dir"?)');
});

test('a tool the sandbox can only deny loads with a one-line warning saying why; the others say nothing', async () => {
  await config(`export default defineConfig({
  plugins: [scripted([{ text: 'hi' }, { text: 'again' }]), tools(), sandbox({ files: { read: ['.'] } })],
});\n`);
  await mkdir(path.join(dir, '.oryxos'), { recursive: true });
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['read_file', 'shell', 'http_request', 'write_file'] } });
  const r = await oryx(['run', 'hi']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'hi\n', 'the run goes on');
  const warnings = r.stderr.trimEnd().split('\n');
  // In the order of the tools' names, as the model is offered them.
  assert.equal(warnings, [
    'warning: tools: agent "assistant": tool "http_request" is unavailable: no HTTP request may be made: http.allow is empty in sandbox({...}) of oryx.config.ts; its calls will be denied',
    'warning: tools: agent "assistant": tool "shell" is unavailable: no program may be run: exec.allow is empty in sandbox({...}) of oryx.config.ts; its calls will be denied',
    'warning: tools: agent "assistant": tool "write_file" is unavailable: no file may be written: files.write is empty in sandbox({...}) of oryx.config.ts; its calls will be denied',
  ]);
});

test.run();
