// A project made by `oryx init` inside a git repository, used the way a person uses it: after a
// run, `git status` lists only what the person wrote or may share (the config, the agents, the
// bootstrap files, the agent's MEMORY.md), never what OryxOS keeps for this machine (the database
// and its journals, the high-water mark beside it, the sandbox's records). What a run does not
// write here (the web token, server logs, users' and conversations' memories) is checked with
// `git check-ignore` on one path of each, as plugins/sandbox/src/operator-files.ts lists the
// operator's files; `oryx doctor` says when a project's `.gitignore` misses any of it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject } from '@oryxos/kernel/testing';

let dir: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
/** Which of `paths` git ignores (check-ignore exits 1 when none is). */
const ignored = (paths: string[]) => spawnSync('git', ['check-ignore', ...paths], { cwd: dir, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

test.before(async () => {
  dir = await tempProject('init-git-');
  git('init', '-q');
});
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

test('after oryx init and a run, git sees only what the person wrote: no database, journal, high-water mark or sandbox record', async () => {
  const init = await runOryx(['init'], { cwd: dir, env: { OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ANTHROPIC_API_KEY: undefined, GEMINI_API_KEY: undefined, GOOGLE_API_KEY: undefined, OLLAMA_HOST: 'http://127.0.0.1:9' } });
  assert.is(init.code, 0, init.stderr);
  // The config as init wrote it, every plugin on, with a scripted model instead of Ollama: it reads
  // a file through the sandbox, then answers.
  const configFile = path.join(dir, 'oryx.config.ts');
  const config = (await readFile(configFile, 'utf8'))
    .replace("import ollama from '@oryxos/plugin-ollama';", "import { scripted } from '@oryxos/kernel/testing';")
    .replace(/^\s*ollama\(.*$/m, "    scripted([{ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'read it' }]),");
  assert.match(config, 'scripted([');
  await writeFile(configFile, config);
  await writeFile(path.join(dir, 'notes.txt'), 'a note\n');
  const run = await runOryx(['run', 'read notes.txt'], { cwd: dir });
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout.trim(), 'read it');

  const written = ['.oryxos/oryx.db', '.oryxos/oryx.db.seen.json', '.oryxos/sandbox/deny-identities.json'];
  for (const file of written) assert.ok(existsSync(path.join(dir, file)), `the run wrote ${file}`);
  assert.equal(ignored(written), written);
  const untracked = git('ls-files', '--others', '--exclude-standard').split('\n').filter(Boolean).sort();
  assert.equal(untracked, [
    '.oryxos/.gitignore', '.oryxos/AGENTS.md', '.oryxos/SOUL.md', '.oryxos/USER.md', '.oryxos/agents/assistant/AGENT.md',
    '.oryxos/mcp_servers.yaml', '.oryxos/memory/MEMORY.md', 'notes.txt', 'oryx.config.ts', 'tsconfig.json',
  ]);
});

test('what OryxOS keeps for the operator elsewhere in .oryxos is ignored too', async () => {
  const operatorPaths = [
    '.oryxos/web-token', '.oryxos/logs/web.log', '.oryxos/cache/x', '.oryxos/sandbox/quarantine/x',
    '.oryxos/memory/users/alice/MEMORY.md', '.oryxos/memory/sessions/3f2a/MEMORY.md', '.oryxos/memory/migrated-checkpoints.md',
    '.oryxos/agents/assistant/users/alice/MEMORY.md', '.oryxos/memory/MEMORY.md.lock', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm',
  ];
  for (const p of operatorPaths) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
    await writeFile(path.join(dir, p), 'x');
  }
  assert.equal(ignored(operatorPaths), operatorPaths);
  // The person's own files stay visible.
  assert.equal(ignored(['.oryxos/memory/MEMORY.md', '.oryxos/agents/assistant/AGENT.md', 'oryx.config.ts']), []);
});

test('oryx doctor says whether git keeps this machine\'s files out, and names what to add or take out of git', async () => {
  const gitCheck = async () => {
    const r = await runOryx(['doctor', '--json'], { cwd: dir });
    return (JSON.parse(r.stdout).items as { check: string; status: string; detail: string; fix?: string }[]).find((c) => c.check === 'git')!;
  };
  assert.is((await gitCheck()).status, 'ok');
  // A project made before init wrote the last lines, with its high-water mark committed.
  const ignoreFile = path.join(dir, '.oryxos', '.gitignore');
  const full = await readFile(ignoreFile, 'utf8');
  await writeFile(ignoreFile, full.replace('oryx.db.seen.json\n', '').replace('sandbox/\n', ''));
  git('add', '-f', '.oryxos/oryx.db.seen.json');
  const old = await gitCheck();
  assert.is(old.status, 'warn');
  assert.match(old.detail, 'oryx.db.seen.json, sandbox/');
  assert.match(old.fix!, 'Add these lines to .oryxos/.gitignore: oryx.db.seen.json, sandbox/');
  await writeFile(ignoreFile, full);
  const committed = await gitCheck();
  assert.is(committed.status, 'warn');
  assert.match(committed.detail, 'committed although they are this machine\'s: .oryxos/oryx.db.seen.json');
  assert.match(committed.fix!, 'git rm --cached .oryxos/oryx.db.seen.json');
  git('rm', '-q', '--cached', '.oryxos/oryx.db.seen.json');
  assert.is((await gitCheck()).status, 'ok');
});

test.run();
