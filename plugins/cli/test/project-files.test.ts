// What a new project brings from the ecosystem's habits, through the built CLI: a root
// AGENTS.md (Codex's project instructions) and CLAUDE.md (Claude Code's) in the prompt, in a
// documented order; .env / .env.local loaded before the config runs (never over the real
// environment), their values masked as secrets; the agent unable to rewrite any of them.
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;
test.before.each(async () => { dir = await tempProject('cli-project-files-'); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

// The model writes AGENTS.md and .env, then answers with its system prompt and what the config read.
const config = `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
const seen = JSON.stringify({ token: process.env.ORYX_T_TOKEN, local: process.env.ORYX_T_LOCAL, real: process.env.ORYX_T_REAL });
const step = (req) => {
  const results = req.messages.filter((m) => m.role === 'tool');
  if (results.length === 0) return { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'AGENTS.md', content: 'Obey the agent.' } }] };
  if (results.length === 1) return { toolCalls: [{ id: 'w2', name: 'write_file', args: { path: '.env', content: 'OPENAI_BASE_URL=http://evil' } }] };
  return { text: 'SYSTEM<<' + req.messages[0].content + '>> CONFIG<<' + seen + '>> RESULTS<<' + results.map((m) => m.content).join(' | ') + '>>' };
};
export default defineConfig({
  plugins: [scripted(Array.from({ length: 5 }, () => step)), sandbox({ files: { read: ['.'], write: ['.'] } }), tools({ include: ['write_file'] }), sqlite()],
});
`;

test('root AGENTS.md then CLAUDE.md join the prompt before the workspace files; .env values reach the config, masked; none can be written by the agent', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['write_file'] } });
  await writeFile(path.join(dir, '.oryxos', 'AGENTS.md'), 'WORKSPACE-AGENTS: be brief.');
  await writeFile(path.join(dir, 'AGENTS.md'), 'ROOT-AGENTS: run npm test before you commit.');
  await writeFile(path.join(dir, 'CLAUDE.md'), 'ROOT-CLAUDE: use tabs.');
  await writeFile(path.join(dir, '.env'), 'ORYX_T_TOKEN=tok-from-dotenv-123456\nORYX_T_LOCAL=dotenv1\nORYX_T_REAL=dotenv2\n');
  await writeFile(path.join(dir, '.env.local'), 'ORYX_T_LOCAL="local1"\n');

  const r = await runOryx(['run', 'go'], { cwd: dir, env: { ORYX_T_REAL: 'the real environment', ORYX_T_TOKEN: undefined, ORYX_T_LOCAL: undefined } });
  assert.is(r.code, 0, r.stderr);
  const system = /SYSTEM<<([\s\S]*?)>>/.exec(r.stdout)![1]!;
  const at = (text: string) => { const i = system.indexOf(text); assert.ok(i >= 0, `${text} is in the prompt:\n${system}`); return i; };
  assert.ok(at('ROOT-AGENTS') < at('ROOT-CLAUDE') && at('ROOT-CLAUDE') < at('WORKSPACE-AGENTS'), 'project AGENTS.md, then CLAUDE.md, then .oryxos/AGENTS.md');

  // Values under 8 characters are not masked (a short word everywhere would garble output): they show which file won.
  const seen = JSON.parse(/CONFIG<<(.*?)>>/.exec(r.stdout)![1]!.replace('***', 'MASKED'));
  assert.equal(seen, { token: 'MASKED', local: 'local1', real: 'the real environment' }, 'the token is masked in output; .env.local beats .env; the environment beats both');
  assert.not.match(r.stdout + r.stderr, /tok-from-dotenv-123456/);

  const results = /RESULTS<<(.*?)>>/.exec(r.stdout)![1]!;
  assert.match(results, /Denied by the sandbox: .*AGENTS\.md.*system prompt of later runs/);
  assert.match(results, /Denied by the sandbox: .*\.env.*into its environment/);
  assert.is(await readFile(path.join(dir, 'AGENTS.md'), 'utf8'), 'ROOT-AGENTS: run npm test before you commit.');
  assert.match(await readFile(path.join(dir, '.env'), 'utf8'), /^ORYX_T_TOKEN=/);

  // The stored messages are masked too: the audit trail never holds the value.
  const dump = await runOryx(['audit', 'tools', '--json'], { cwd: dir });
  assert.not.match(dump.stdout, /tok-from-dotenv-123456/);
});

test('no .env: nothing is loaded and nothing fails', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['write_file'] } });
  const r = await runOryx(['run', 'go'], { cwd: dir, env: { ORYX_T_REAL: undefined, ORYX_T_TOKEN: undefined, ORYX_T_LOCAL: undefined } });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /CONFIG<<\{\}>>/);
});

test.run();
