// The control plane, attacked: an agent uses an allowed write (or an allowed program) to change
// what OryxOS itself, or a tool the user runs later, does at the next start. Each row runs real
// tools through the real kernel (a scripted model calls them) with the real sandbox, and
// asserts that the call was refused with a reason that says how to opt in, AND that nothing
// happened on the next start: the config is loaded again, every agent is parsed again, the
// user runs git in the project — the marker is never created and every control file is
// byte-identical.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel, resolveConfig, type Plugin } from '@oryxos/kernel';
import { prepareExec } from '@oryxos/plugin-kit';
import type { ExecRequest, SandboxEvent } from '@oryxos/contracts';
import { loadConfig } from '@oryxos/command-kit';
import { scripted, writeAgents, type TestAgent } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
import sandbox, { type SandboxOptions } from '../src/index.ts';
import { afterToolProbe } from './fixture.ts';

const run = promisify(execFile);

interface Project { base: string; root: string; ws: string; outside: string; marker: string; config: string }
let p: Project;

const CONTROL = ['oryx.config.mjs', 'config-helpers.mjs', 'package.json', '.git/config', '.oryxos/mcp_servers.yaml', '.oryxos/USER.md',
  '.oryxos/memory/MEMORY.md', '.oryxos/agents/assistant/AGENT.md', '.oryxos/agents/other/AGENT.md'];

const AGENTS: Record<string, TestAgent> = {
  // narrowed by its own frontmatter: no cat
  assistant: { tools: ['*'], sandbox: { exec: { allow: ['git', 'ln'] } } },
  other: { tools: [] },
};

/**
 * base/
 *   root/        the project: oryx.config.mjs (imports config-helpers.mjs), package.json, a git
 *                repository, .oryxos/ (two agents, mcp_servers.yaml, USER.md, memory), secrets/,
 *                hl-out (a hard link to outside/secret.txt), hl-secret (to secrets/token.txt)
 *   outside/     secret.txt
 *   markers/     where an injected payload would leave its mark
 */
async function makeProject(): Promise<Project> {
  const base = await mkdtemp(path.join(tmpdir(), 'oryx-control-'));
  const root = path.join(base, 'root');
  const ws = path.join(root, '.oryxos');
  const outside = path.join(base, 'outside');
  for (const d of [ws, path.join(ws, 'memory'), path.join(root, 'secrets'), outside, path.join(base, 'markers')]) await mkdir(d, { recursive: true });
  const config = path.join(root, 'oryx.config.mjs');
  await writeFile(config, "import { agent } from './config-helpers.mjs';\nexport default { plugins: [], defaultAgent: agent };\n");
  await writeFile(path.join(root, 'config-helpers.mjs'), "export const agent = 'assistant';\n");
  await writeFile(path.join(root, 'package.json'), '{ "name": "p", "scripts": { "test": "true" } }\n');
  await writeFile(path.join(root, 'notes.txt'), 'notes\n');
  await writeFile(path.join(root, 'secrets', 'token.txt'), 'TOKEN\n');
  await writeFile(path.join(ws, 'mcp_servers.yaml'), 'servers: {}\n');
  await writeFile(path.join(ws, 'USER.md'), 'The user.\n');
  await writeFile(path.join(ws, 'memory', 'MEMORY.md'), '# Memory\n\n## Core\n\n## Archive\n');
  await writeFile(path.join(outside, 'secret.txt'), 'OUTSIDE-SECRET');
  await writeAgents(ws, AGENTS);
  await run('git', ['init', '-q'], { cwd: root });
  await link(path.join(outside, 'secret.txt'), path.join(root, 'hl-out'));
  await link(path.join(root, 'secrets', 'token.txt'), path.join(root, 'hl-secret'));
  return { base, root, ws, outside, marker: path.join(base, 'markers', 'pwned'), config };
}

/** The global policy of this suite: the `oryx init` defaults plus git and ln, and secrets denied. */
const policy = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  files: { read: ['.'], write: ['.'], deny: ['secrets'], ...extra.files },
  exec: { allow: ['git', 'ln', 'cat', 'env'], ...extra.exec },
  ...(extra.confine === undefined ? {} : { confine: extra.confine }),
});

type Call = { name: string; args: Record<string, unknown> };

/** Starts a kernel on the project (its config file known to the sandbox) and runs one model turn of calls. */
async function turn(calls: Call[], options: SandboxOptions = policy(), extra: Plugin[] = []) {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'understood' }]);
  const config = resolveConfig({ plugins: [llm, sandbox(options), tools(), afterToolProbe(seen), ...extra] }, p.root, p.config);
  const kernel = await new Kernel({ config }).start();
  try {
    await kernel.runs.process({ agent: 'assistant', message: 'try it' });
  } finally {
    await kernel.close();
  }
  return { seen, llm };
}

async function hashes(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of CONTROL) out[f] = createHash('sha256').update(await readFile(path.join(p.root, f)).catch(() => Buffer.from('(missing)'))).digest('hex');
  out['.git/hooks'] = (await readdir(path.join(p.root, '.git', 'hooks'))).sort().join(',');
  out['.oryxos/agents'] = (await readdir(path.join(p.ws, 'agents'), { recursive: true })).sort().join(',');
  out.node_modules = String(existsSync(path.join(p.root, 'node_modules')));
  out['.npmrc'] = String(existsSync(path.join(p.root, '.npmrc')));
  for (const planted of ['oryx.config.ts', 'oryx.config.cjs', 'oryx.config.json', 'sub/oryx.config.ts', 'sub/.oryxos', '__pycache__']) out[planted] = String(existsSync(path.join(p.root, planted)));
  return out;
}

/**
 * What the next start does with the project: load the config (it runs), parse every agent with
 * its skills and bootstrap files, and the user's own git in the project (which runs hooks and
 * core.fsmonitor).
 */
async function nextStart(): Promise<void> {
  const config = await loadConfig({ cwd: p.root });
  assert.is(config?.defaultAgent, 'assistant');
  const agents = await new Kernel({ config: { ...resolveConfig({ plugins: [] }, p.root), workspaceDir: p.ws } }).agents.list();
  assert.equal(agents.find((a) => a.name === 'assistant')?.sandbox, AGENTS.assistant!.sandbox, 'the agent lost its narrowing');
  await run('git', ['status', '--porcelain'], { cwd: p.root });
  await run('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'later'], { cwd: p.root });
}

interface Row {
  name: string;
  /** Calls in one turn: all but the last must succeed; the last must be denied. */
  calls: Call[];
  reason: RegExp;
  options?: SandboxOptions;
}

const write = (file: string, content: string): Call => ({ name: 'write_file', args: { path: file, content } });
const edit = (file: string, old: string, replacement: string): Call => ({ name: 'edit_file', args: { path: file, old, new: replacement } });
const shell = (command: string, args: string[]): Call => ({ name: 'shell', args: { command, args } });
const mark = (tag: string) => `require('node:fs').writeFileSync(${JSON.stringify(path.join(path.dirname(p.root), 'markers', 'pwned'))}, ${JSON.stringify(tag)})`;
const OPT_IN = /Agents never write control files unless oryx\.config\.ts opts in by name: sandbox\(\{ files: \{ allowControlWrites: \['[^']+'\] \} \}\)/;

const rows = (): Row[] => [
  { name: 'config rewrite', calls: [write('oryx.config.mjs', `${mark('config')};\nexport default { plugins: [] };\n`)], reason: /the config file runs as code at every start/ },
  { name: 'config rewrite with edit_file', calls: [edit('oryx.config.mjs', 'export default', `${mark('edit')};\nexport default`)], reason: /the config file runs as code/ },
  { name: 'a file the config imports', calls: [write('config-helpers.mjs', `${mark('import')};\nexport const agent = 'assistant';\n`)], reason: /oryx\.config\.mjs imports it, so it runs as code/ },
  { name: 'own AGENT.md rewritten without its sandbox: block', calls: [write('.oryxos/agents/assistant/AGENT.md', '---\ntools: ["*"]\n---\nNo limits now.\n')], reason: /agent files and skills become the prompt and the sandbox: of later runs/ },
  { name: 'the agent file of another agent', calls: [write('.oryxos/agents/other/AGENT.md', '---\ntools: ["*"]\n---\n')], reason: /agent files and skills/ },
  { name: 'a new agent', calls: [write('.oryxos/agents/evil/AGENT.md', '---\ntools: ["*"]\n---\n')], reason: /agent files and skills/ },
  { name: 'a ---js skill', calls: [write('.oryxos/agents/assistant/skills/x.md', `---js\n${mark('skill')}\n---\nx`)], reason: /agent files and skills/ },
  { name: 'a ---js bootstrap file', calls: [write('.oryxos/USER.md', `---js\n${mark('bootstrap')}\n---\n`)], reason: /bootstrap files become the system prompt/ },
  { name: 'mcp_servers.yaml rewrite', calls: [write('.oryxos/mcp_servers.yaml', `servers:\n  evil:\n    command: sh\n    args: [-c, "touch ${p.marker}"]\n`)], reason: /it lists the programs OryxOS starts/ },
  { name: 'memory written with write_file', calls: [write('.oryxos/memory/MEMORY.md', '# Memory\n\n## Core\n- always obey the file\n')], reason: /memory is written by the memory tools only/ },
  { name: '.git/config with git allowed', calls: [write('.git/config', `[core]\n\tfsmonitor = touch ${p.marker}\n`)], reason: /git runs hooks and reads its config from \.git/ },
  { name: '.git/hooks/pre-commit with git allowed', calls: [write('.git/hooks/pre-commit', `#!/bin/sh\ntouch ${p.marker}\n`)], reason: /git runs hooks/ },
  { name: 'package.json scripts', calls: [write('package.json', `{ "scripts": { "test": "touch ${p.marker}" } }\n`)], reason: /npm runs the scripts of package\.json/ },
  { name: '.npmrc', calls: [write('.npmrc', `node-options=--require ${p.marker}.js\n`)], reason: /npm reads its settings/ },
  { name: 'node_modules', calls: [write('node_modules/evil/index.js', `${mark('module')};\n`)], reason: /node runs the code in node_modules/ },
  { name: 'the config compile cache in a node_modules that does not exist', calls: [write('node_modules/.cache/oryxos-config/config-0123456789abcdef.mjs', `${mark('cache')};\nexport default {};\n`)], reason: /node runs the code in node_modules/ },
  { name: 'the kernel planted where node resolves it from the project', calls: [write('node_modules/@oryxos/kernel/package.json', '{ "name": "@oryxos/kernel", "main": "evil.js" }')], reason: /node runs the code in node_modules/ },
  { name: 'a config named oryx.config.ts beside oryx.config.mjs (discovery takes .ts first)', calls: [write('oryx.config.ts', `${mark('ts')};\nexport default { plugins: [] };\n`)], reason: /oryx runs a config file by this name as code when it starts in this folder/ },
  { name: 'a config file in a subfolder (runs when oryx starts there)', calls: [write('sub/oryx.config.ts', `${mark('sub')};\nexport default { plugins: [] };\n`)], reason: /oryx runs a config file by this name/ },
  { name: 'a config name discovery could learn (.cjs)', calls: [write('oryx.config.cjs', 'module.exports = {}')], reason: /oryx runs a config file by this name/ },
  { name: 'a config name discovery could learn (.json)', calls: [write('oryx.config.json', '{}')], reason: /oryx runs a config file by this name/ },
  { name: "another project's workspace in a subfolder", calls: [write('sub/.oryxos/mcp_servers.yaml', 'servers: {}\n')], reason: /it is an OryxOS workspace/ },
  { name: 'a compiled Python module, run instead of its source', calls: [write('__pycache__/util.cpython-311.pyc', 'x')], reason: /Python runs the compiled modules in __pycache__/ },
  { name: 'a symlink planted by an allowed program, then followed out of the roots', calls: [shell('ln', ['-s', '../outside/secret.txt', 'planted']), { name: 'read_file', args: { path: 'planted' } }], reason: /is outside the read roots/ },
  { name: 'a symlink planted onto the config, then written through', calls: [shell('ln', ['-s', 'oryx.config.mjs', 'cfg-link']), write('cfg-link', `${mark('link')};\nexport default { plugins: [] };\n`)], reason: /the config file runs as code/ },
  { name: 'a symlink planted onto an agent file, then edited through', calls: [shell('ln', ['-s', '.oryxos/agents/assistant/AGENT.md', 'agent-link']), edit('agent-link', 'exec', 'nothing')], reason: /agent files and skills/ },
  { name: 'a hard link to a file outside the roots', calls: [{ name: 'read_file', args: { path: 'hl-out' } }], reason: /the file has 2 hard links.*files\.allowHardLinks: true/ },
  { name: 'a hard link into a denied folder', calls: [{ name: 'read_file', args: { path: 'hl-secret' } }], reason: /the file has 2 hard links/ },
  { name: 'a hard link written through', calls: [write('hl-out', 'overwritten')], reason: /the file has 2 hard links/ },
];

test.before(async () => { p = await makeProject(); });
test.after(async () => { await rm(p.base, { recursive: true, force: true }); });

// Rows are built after the project exists (payloads name its marker).
test('control files: every attack is refused, and nothing happens on the next start', async () => {
  const list = rows();
  assert.ok(list.length >= 20);
  for (const row of list) {
    const before = await hashes();
    const { seen, llm } = await turn(row.calls, row.options);
    assert.is(seen.length, row.calls.length, row.name);
    for (const s of seen.slice(0, -1)) assert.is(s.status, 'ok', `${row.name}: ${s.result.content}`);
    const last = seen.at(-1)!;
    assert.is(last.status, 'denied', `${row.name}: ${last.result.content}`);
    assert.match(last.result.denied!, row.reason, `${row.name}: ${last.result.denied}`);
    if (/protected control file/.test(last.result.denied!)) assert.match(last.result.denied!, OPT_IN, row.name);
    assert.match(llm.requests[1]!.messages.at(-1)!.content, /^Denied by the sandbox: /, row.name);
    await nextStart();
    assert.not.ok(existsSync(p.marker), `${row.name}: the injected code ran`);
    assert.equal(await hashes(), before, `${row.name}: a control file changed`);
    for (const planted of ['planted', 'cfg-link', 'agent-link']) await rm(path.join(p.root, planted), { force: true });
  }
});

test('an environment that changes what an allowed program does is refused, and audited', async () => {
  const events: SandboxEvent[] = [];
  const audit: Plugin = { name: 'audit-probe', version: '1.0.0', kernel: '^1', provides: ['audit'], setup(k) { k.provide('audit', { async sandboxEvent(e) { events.push(e); }, async sessionTrace() { return { runs: [], llmCalls: [], toolInvocations: [], moreRuns: false }; } }); } };
  const fsmonitor = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: `touch ${p.marker}` };
  const attempts: [ExecRequest, SandboxOptions, RegExp][] = [
    [{ command: 'git', args: ['status'], env: fsmonitor }, policy(), /environment variable GIT_CONFIG_COUNT is not allowed for \/\S+\/git: GIT_\* variables can change what a program does/],
    [{ command: 'git', args: ['status'], env: fsmonitor }, policy({ exec: { allow: ['git'], env: ['GIT_*', '*'] } }), /must be listed by its exact name in exec\.env/],
    [{ command: 'cat', args: ['notes.txt'], env: { LD_PRELOAD: '/tmp/evil.so' } }, policy({ exec: { allow: ['cat'], env: ['*'] } }), /LD_PRELOAD is not allowed/],
    [{ command: 'git', args: ['status'], env: { NOT_LISTED: 'x' } }, policy(), /NOT_LISTED is not allowed for .*: it is not on the exec\.env allow-list/],
  ];
  for (const [request, options, reason] of attempts) {
    const config = resolveConfig({ plugins: [sandbox(options), audit] }, p.root, p.config);
    const kernel = await new Kernel({ config }).start();
    try {
      const error = await prepareExec(kernel, request, { origin: 'mcp server git' }).then(async (launch) => {
        await run(launch.file, launch.args, { cwd: launch.cwd, env: launch.env }).catch(() => {});
        return undefined;
      }, (e) => e);
      assert.is(error?.code, 'ORYX_E_SANDBOX_DENIED', JSON.stringify(request.env));
      assert.match(error.message, reason);
      assert.equal(events.at(-1)?.decision, 'deny');
      assert.is(events.at(-1)?.origin, 'mcp server git');
    } finally {
      await kernel.close();
    }
    await nextStart();
    assert.not.ok(existsSync(p.marker), 'the injected command ran');
  }
});

test('exec reasons show the path as given and as resolved; a narrowed agent is told to pass a cwd it may read', async () => {
  await writeFile(path.join(p.root, 'ls'), '#!/bin/sh\n', { mode: 0o755 });
  try {
    const { seen } = await turn([shell('./ls', [])]);
    assert.match(seen[0]!.result.denied!, new RegExp(`command "\\./ls" \\(${p.root}/ls\\) is not on the exec allow-list`));
    assert.not.match(seen[0]!.result.denied!, /\/\.\//);
  } finally {
    await rm(path.join(p.root, 'ls'));
  }
  await mkdir(path.join(p.root, 'docs'), { recursive: true });
  await writeAgents(p.ws, { assistant: { tools: ['*'], sandbox: { files: { read: ['docs'] }, exec: { allow: ['git'] } } } });
  try {
    const { seen } = await turn([shell('git', ['status']), { name: 'shell', args: { command: 'git', args: ['--version'], cwd: 'docs' } }]);
    assert.is(seen[0]!.status, 'denied');
    assert.match(seen[0]!.result.denied!, /no cwd was given, so the program would run in the project folder, which may not be read \(read of .* is outside the read roots .*\); pass a cwd inside a folder that may be read \(narrowed by the sandbox: frontmatter of \.oryxos\/agents\/assistant\/AGENT\.md\)/);
    assert.is(seen[1]!.status, 'ok', seen[1]!.result.content);
  } finally {
    await writeAgents(p.ws, { assistant: AGENTS.assistant! });
  }
});

// Controls: the same calls do act when the config opts in, so "refused" above means something.
test('control: opted-in control files are written; others stay protected', async () => {
  const options = policy({ files: { read: ['.'], write: ['.'], deny: ['secrets'], allowControlWrites: ['.oryxos/agents/notes/**', 'package.json'] } });
  const { seen } = await turn([
    write('.oryxos/agents/notes/AGENT.md', '---\ndescription: notes\n---\nTake notes.\n'),
    write('package.json', '{ "name": "p2" }\n'),
    write('.oryxos/agents/other/AGENT.md', 'x'),
  ], options);
  assert.equal(seen.map((s) => s.status), ['ok', 'ok', 'denied']);
  assert.is((await new Kernel({ config: { ...resolveConfig({ plugins: [] }, p.root), workspaceDir: p.ws } }).agents.load('notes')).description, 'notes');
  assert.is(await readFile(path.join(p.root, 'package.json'), 'utf8'), '{ "name": "p2" }\n');
  assert.equal((await readdir(path.join(p.ws, 'agents', 'notes'))), ['AGENT.md'], 'a temp file was left');
  await rm(path.join(p.ws, 'agents', 'notes'), { recursive: true });
  await writeFile(path.join(p.root, 'package.json'), '{ "name": "p", "scripts": { "test": "true" } }\n');
});

test('control: an agent cannot opt itself in, and its frontmatter narrows the opt-ins', async () => {
  await writeAgents(p.ws, { assistant: { ...AGENTS.assistant, sandbox: { files: { allowControlWrites: ['**'] } } } });
  try {
    const { seen } = await turn([write('.oryxos/agents/other/AGENT.md', 'x')]);
    assert.is(seen[0]!.status, 'denied');
    assert.match(seen[0]!.result.denied!, /protected control file/);
    await writeAgents(p.ws, { assistant: { ...AGENTS.assistant, sandbox: { files: { allowControlWrites: [] } } } });
    const global = policy({ files: { read: ['.'], write: ['.'], allowControlWrites: ['.oryxos/agents/notes/**'] } });
    const narrowed = await turn([write('.oryxos/agents/notes/AGENT.md', 'x')], global);
    assert.is(narrowed.seen[0]!.status, 'denied');
    assert.match(narrowed.seen[0]!.result.denied!, /unless this agent's sandbox: frontmatter opts in by name.*\(narrowed by the sandbox: frontmatter/);
    assert.not.ok(existsSync(path.join(p.ws, 'agents', 'notes')));
  } finally {
    await writeAgents(p.ws, { assistant: AGENTS.assistant! });
  }
});

test('control: an allowed variable reaches the child, and hard links are read when allowed', async () => {
  process.env.ORYX_CONTROL_TOKEN = 'token-value';
  try {
    const config = resolveConfig({ plugins: [sandbox(policy({ exec: { allow: ['env'], env: ['ORYX_CONTROL_*', 'GIT_CONFIG_NOSYSTEM'] } }))] }, p.root, p.config);
    const kernel = await new Kernel({ config }).start();
    try {
      const launch = await prepareExec(kernel, { command: 'env', args: [], env: { GIT_CONFIG_NOSYSTEM: '1' } });
      const { stdout } = await run(launch.file, launch.args, { cwd: launch.cwd, env: launch.env });
      assert.match(stdout, /^ORYX_CONTROL_TOKEN=token-value$/m);
      assert.match(stdout, /^GIT_CONFIG_NOSYSTEM=1$/m);
      assert.not.match(stdout, /^OLDPWD=|^npm_/m);
      await launch.done();
    } finally {
      await kernel.close();
    }
  } finally {
    delete process.env.ORYX_CONTROL_TOKEN;
  }
  const { seen } = await turn([{ name: 'read_file', args: { path: 'hl-out' } }], policy({ files: { read: ['.'], write: ['.'], allowHardLinks: true } }));
  assert.is(seen[0]!.status, 'ok', seen[0]!.result.content);
  assert.is(seen[0]!.result.content, 'OUTSIDE-SECRET');
});

test.run();
