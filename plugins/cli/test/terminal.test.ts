// What `oryx run` shows a person: on a terminal (a pseudo-terminal from util-linux `script`) a
// spinner with the phase, one line per tool call, the answer and a dim footer, in colour unless
// NO_COLOR or --no-color; off a terminal, with --json or --quiet, exactly the answer.
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';

let dir: string;

// A scripted model that calls `shout` (ok), `fail` (error) and `shout` again with a denial from
// a beforeTool guard, then answers.
const config = `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
const tools = {
  name: 'tools', version: '1.0.0', kernel: '^1',
  setup(k) {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    k.registerTool({ name: 'shout', description: 'Upper-cases text', source: 'plugin', inputSchema: schema, async execute(a) { return String(a.text).toUpperCase(); } });
    k.registerTool({ name: 'fail', description: 'Always fails', source: 'plugin', inputSchema: schema, async execute() { throw new Error('disk on fire'); } });
    k.hooks.beforeTool.tapPromise(async ({ call }) => (call.args.text === 'secret' ? { content: 'Denied by the sandbox: not for you', isError: true, denied: 'not for you' } : undefined));
  },
};
export default defineConfig({
  plugins: [
    scripted([
      { toolCalls: [{ name: 'shout', args: { text: 'hello cli' } }, { name: 'fail', args: { text: 'x' } }, { name: 'shout', args: { text: 'secret' } }] },
      { text: 'All done.' },
    ]),
    tools,
  ],
});
`;

test.before.each(async () => {
  dir = await tempProject('cli-tty-');
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['shout', 'fail'] } });
});
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

/** Runs the built CLI under a pseudo-terminal; returns everything the terminal received. */
function onTerminal(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; screen: string }> {
  const bin = path.join(process.cwd(), 'bin', 'run.js');
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, bin, ...args].map(quote).join(' ');
  // The spinner animates only where CI is unset and TERM is not dumb, as a person's terminal is.
  const childEnv: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: dir, env: childEnv as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { screen += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { screen += d; });
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, screen }));
  });
}

// eslint-disable-next-line no-control-regex
const COLOUR = /\x1b\[(?:3[0-9]|9[0-7]|2)m/;
// eslint-disable-next-line no-control-regex
const strip = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

test('on a terminal: spinner with the phase, one line per tool call, the answer, a dim footer, in colour', async () => {
  const r = await onTerminal(['run', 'Shout', 'it', 'please']);
  assert.is(r.code, 0, r.screen);
  const text = strip(r.screen);
  assert.match(text, 'thinking…');
  assert.match(text, /shout hello cli…/, 'the spinner names the tool and its argument');
  assert.match(text, /✓ shout hello cli ok \d+ ms\n/);
  assert.match(text, /✗ fail x error \d+ ms: fail failed: disk on fire\n/);
  assert.match(text, /⊘ shout secret denied \d+ ms: not for you\n/);
  assert.match(text, /All done\.\n/);
  assert.match(text, /session [0-9a-f]{8} · 2 iterations · \d+ in \/ \d+ out tokens · \d+(\.\d)? m?s/);
  assert.ok(text.indexOf('All done.') < text.indexOf('session '), 'the footer comes after the answer');
  assert.match(r.screen, COLOUR, 'colour codes are there');
  assert.match(r.screen, '\x1b[2msession ', 'the footer is dim');
  assert.match(r.screen, '\x1b[31merror', 'an error is red');
  assert.match(r.screen, '\x1b[33mdenied', 'a denial is yellow');
});

test('on a terminal: NO_COLOR and --no-color turn colour off, --quiet and --json everything but the answer', async () => {
  for (const [args, env] of [[['run', 'hi'], { NO_COLOR: '1' }], [['run', 'hi', '--no-color'], {}]] as const) {
    const r = await onTerminal([...args], env);
    assert.is(r.code, 0, r.screen);
    assert.not.match(r.screen, COLOUR, `no colour with ${JSON.stringify(args)} ${JSON.stringify(env)}`);
    assert.match(strip(r.screen), /✓ shout hello cli ok/, 'progress is still shown');
  }
  const quiet = await onTerminal(['run', 'hi', '-q']);
  assert.is(quiet.code, 0, quiet.screen);
  assert.is(strip(quiet.screen).trim(), 'All done.');
  const json = await onTerminal(['run', 'hi', '--json']);
  assert.is(json.code, 0, json.screen);
  assert.is(JSON.parse(strip(json.screen)).answer, 'All done.');
});

test('off a terminal: stdout is exactly the answer; stderr has one plain line per tool call, none with --quiet', async () => {
  const r = await runOryx(['run', 'Shout', 'it', 'please'], { cwd: dir, env: { NO_COLOR: undefined } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'All done.\n');
  const lines = r.stderr.trimEnd().split('\n');
  assert.is(lines.length, 3, r.stderr);
  assert.ok(lines.every((l) => /^ {2}[✓✗⊘] (shout|fail) /.test(l)), r.stderr);
  assert.not.match(r.stderr, /\x1b\[/, 'no colour off a terminal');
  const quiet = await runOryx(['run', 'Shout', 'it', 'please', '--quiet'], { cwd: dir });
  assert.is(quiet.stderr, '');
});

test.run();
