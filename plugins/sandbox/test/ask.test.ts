import { tmpdir } from 'node:os';
import path from 'node:path';
// The third outcome: `ask` lists beside every allow-list. Deny beats ask beats allow, for each
// action kind, in the global policy and in an agent's narrowing (which can add asks, never
// remove them). The verdicts come from the real policy on a real folder tree.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import type { SandboxAction } from '@oryxos/contracts';
import { scripted, testKernel, type TestAgent } from '@oryxos/kernel/testing';
import type { Plugin } from '@oryxos/kernel';
import tools from '@oryxos/plugin-tools';
import approvals from '@oryxos/plugin-approvals';
import sqlite from '@oryxos/plugin-sqlite';
import sandbox, { type AllowListSandbox, type SandboxOptions, type Verdict } from '../src/index.ts';
import { makeFixture, type Fixture } from './fixture.ts';

let f: Fixture;
test.before(async () => { f = await makeFixture(); });
test.after(async () => { await f?.cleanup(); });

const file = (op: 'read' | 'write', p: string): SandboxAction => ({ kind: 'file', op, path: p });
const exec = (command: string, args: string[] = []): SandboxAction => ({ kind: 'exec', command, args });
const http = (url: string, method = 'GET'): SandboxAction => ({ kind: 'http', url, method });
const smtp = (host: string, port: number): SandboxAction => ({ kind: 'smtp', host, port });

/** The verdicts of the policy (and of the agent, when given) on each action. */
async function verdicts(options: SandboxOptions, actions: SandboxAction[], agent?: TestAgent, approvedActions?: SandboxAction[]): Promise<Verdict[]> {
  const t = await testKernel({ dir: f.root, plugins: [sandbox(options)], agents: { a: agent ?? { tools: [] } } });
  try {
    const def = await t.kernel.agents.load('a');
    const box = t.kernel.service('sandbox') as unknown as AllowListSandbox;
    return await Promise.all(actions.map((a) => box.evaluate(a, { agent: def, ...(approvedActions ? { approvedActions } : {}) })));
  } finally {
    await t.close();
  }
}
const outcomes = (vs: Verdict[]) => vs.map((v) => v.outcome);
const reason = (v: Verdict) => (v.outcome === 'allow' ? '' : v.reason);

test('files: an ask root asks inside the allow roots, opens a path outside them, and never beats the deny list or a control file', async () => {
  const vs = await verdicts(
    { files: { read: ['.'], write: ['.'], deny: ['secrets'], ask: { write: ['sub'], read: ['../outside'] } } },
    [
      file('write', 'notes.txt'), // allow
      file('write', 'sub/file.txt'), // ask: inside files.ask.write
      file('read', 'sub/file.txt'), // allow: ask.write says nothing of reads
      file('read', '../outside/secret.txt'), // ask: outside the read roots, but on files.ask.read
      file('write', '../outside/secret.txt'), // deny: not on any write list
      file('read', 'secrets/token.txt'), // deny: the deny list beats an allow root
      file('write', '.oryxos/agents/a/AGENT.md'), // deny: a control file
    ],
  );
  assert.equal(outcomes(vs), ['allow', 'ask', 'allow', 'ask', 'deny', 'deny', 'deny']);
  assert.match(reason(vs[1]!), /write of "sub\/file\.txt" .*needs approval: it is inside "sub" on files\.ask\.write/);
  assert.match(reason(vs[4]!), /outside the write roots/);
  assert.match(reason(vs[6]!), /protected control file/);
  const denied = await verdicts({ files: { deny: ['secrets'], ask: { read: ['secrets'] } } }, [file('read', 'secrets/token.txt')]);
  assert.equal(outcomes(denied), ['deny'], 'an ask root inside a denied folder stays denied');
});

test('files: with files.write empty, an ask root still asks (the kind is not "unavailable")', async () => {
  const t = await testKernel({ dir: f.root, plugins: [sandbox({ files: { read: ['.'], ask: { write: ['sub'] } } })], agents: { a: { tools: [] } } });
  try {
    const box = t.kernel.service('sandbox') as unknown as AllowListSandbox;
    assert.equal(outcomes([await box.evaluate(file('write', 'sub/new.txt')), await box.evaluate(file('write', 'new.txt'))]), ['ask', 'deny']);
    assert.is(await box.unavailable('write'), undefined);
    assert.match(String(await box.unavailable('exec')), /exec\.allow is empty/);
  } finally {
    await t.close();
  }
});

test('exec: ask entries match an argument prefix, are checked before allow, and cannot pass a bad environment', async () => {
  const options: SandboxOptions = {
    files: { read: ['.'] },
    exec: { allow: ['ls'], ask: [{ command: 'ls', args: ['-l'] }, 'cat'] },
  };
  const vs = await verdicts(options, [
    exec('ls', ['-a']), // allow
    exec('ls', ['-l']), // ask
    exec('ls', ['-l', '-a', 'sub']), // ask: the rule is a prefix
    exec('ls', ['-a', '-l']), // allow: -l is not in first place
    exec('cat', ['notes.txt']), // ask: not on allow, but on ask
    exec('cp', ['a', 'b']), // deny
    { kind: 'exec', command: 'cat', args: [], env: { LD_PRELOAD: '/x.so' } }, // deny: the environment is checked after the match
  ]);
  assert.equal(outcomes(vs), ['allow', 'ask', 'ask', 'allow', 'ask', 'deny', 'deny']);
  assert.match(reason(vs[1]!), /\["ls","-l"\] needs approval: it matches exec\.ask entry \{"command":"ls","args":\["-l"\]\}/);
  assert.match(reason(vs[5]!), /not on the exec allow-list/);
  assert.match(reason(vs[6]!), /LD_PRELOAD/);
});

test('exec: launch() returns ask until the call holds an approval, then the confined launch', async () => {
  const t = await testKernel({ dir: f.root, plugins: [sandbox({ files: { read: ['.'] }, exec: { ask: ['ls'] }, confine: false })], agents: { a: { tools: [] } } });
  try {
    const box = t.kernel.service('sandbox') as unknown as AllowListSandbox;
    const asked = await box.launch({ command: 'ls', args: [] });
    assert.equal([asked.allow, !asked.allow && asked.ask], [false, true]);
    const approved = await box.launch({ command: 'ls', args: [] }, { approvedActions: [{ kind: 'exec', command: 'ls', args: [] }] });
    assert.is(approved.allow, true);
    if (approved.allow) assert.match(approved.launch.program, /\/ls$/);
    const more = await box.launch({ command: 'ls', args: ['-a'] }, { approvedActions: [{ kind: 'exec', command: 'ls', args: [] }] });
    assert.equal([more.allow, !more.allow && more.ask], [false, true], 'other arguments are another action: still asked');
    const other = await box.launch({ command: 'cat', args: [] }, { approvedActions: [{ kind: 'exec', command: 'cat', args: [] }] });
    assert.equal([other.allow, !other.allow && other.ask], [false, undefined], 'an approval never opens what is denied');
  } finally {
    await t.close();
  }
});

test('http and smtp: ask entries beside allow entries; a malformed URL is denied, not asked', async () => {
  const vs = await verdicts({
    http: { allow: ['api.github.com'], ask: ['uploads.github.com', 'http://127.0.0.1:9999'] },
    smtp: { allow: ['mail.example.com:587'], ask: ['smtp.example.com:587'] },
  }, [
    http('https://api.github.com/repos'),
    http('https://uploads.github.com/x', 'POST'),
    http('http://127.0.0.1:9999/hook'),
    http('http://127.0.0.1:9998/hook'),
    http('https://user@uploads.github.com/x'),
    smtp('mail.example.com', 587),
    smtp('smtp.example.com', 587),
    smtp('smtp.example.com', 25),
  ]);
  assert.equal(outcomes(vs), ['allow', 'ask', 'ask', 'deny', 'deny', 'allow', 'ask', 'deny']);
  assert.match(reason(vs[1]!), /POST https:\/\/uploads\.github\.com\/x needs approval: it matches http\.ask/);
  assert.match(reason(vs[4]!), /user info/);
  assert.match(reason(vs[6]!), /SMTP to smtp\.example\.com:587 needs approval/);
});

test('an approval turns exactly the approved action from ask into allow, however it is spelled, never a denial', async () => {
  const vs = await verdicts(
    { files: { read: ['.'], write: ['notes.txt'], ask: { write: ['sub'] } } },
    [
      file('write', 'sub/file.txt'),
      file('write', `${f.root}/sub/../sub/file.txt`), // the same file, spelled another way
      file('write', 'sub/.file.txt.0123456789ab.oryx-tmp'), // the temp file an atomic write of it uses
      file('read', 'sub/file.txt'), // allowed anyway: files.ask.write says nothing of reads
      file('write', 'sub/other.txt'),
      file('write', 'outside.txt'),
    ],
    undefined, [file('write', 'sub/file.txt'), file('write', 'outside.txt')],
  );
  assert.equal(outcomes(vs), ['allow', 'allow', 'allow', 'allow', 'ask', 'deny']);
});

test('agents: frontmatter can add asks, and listing an action on its own allow-list never removes a global ask', async () => {
  const global: SandboxOptions = {
    files: { read: ['.'], write: ['.'], ask: { write: ['sub'] } },
    exec: { allow: ['ls', 'cat'], ask: [{ command: 'ls', args: ['-l'] }] },
    http: { allow: ['api.github.com', 'uploads.github.com'] },
    smtp: { allow: ['mail.example.com:587'] },
  };
  const actions = [
    file('write', 'notes.txt'), // the agent asks for every write
    file('write', 'sub/file.txt'), // global ask stays, although the agent allows the folder
    exec('ls', ['-l']), // global ask stays, although the agent allows ls outright
    exec('cat', ['notes.txt']), // the agent asks
    http('https://api.github.com/'), // the agent asks
    http('https://uploads.github.com/'), // inherits: allowed
    smtp('mail.example.com', 587), // the agent asks
  ];
  const vs = await verdicts(global, actions, {
    tools: [],
    sandbox: {
      files: { write: ['sub'], ask: { write: ['.'] } },
      exec: { allow: ['ls'], ask: ['cat'] },
      http: { ask: ['api.github.com'] },
      smtp: { ask: ['mail.example.com:587'] },
    },
  });
  assert.equal(outcomes(vs), ['ask', 'ask', 'ask', 'ask', 'ask', 'allow', 'ask']);
  assert.match(reason(vs[0]!), /narrowed by the sandbox: frontmatter of \.oryxos\/agents\/a\/AGENT\.md/);
  assert.not.match(reason(vs[1]!), /narrowed/, 'the global ask is the one reported');
  // An agent ask cannot open what the global policy denies.
  const widened = await verdicts({ files: { read: ['.'] } }, [file('write', 'notes.txt'), exec('ls')], {
    tools: [], sandbox: { files: { ask: { write: ['.'] } }, exec: { ask: ['ls'] } },
  });
  assert.equal(outcomes(widened), ['deny', 'deny']);
});

test('through the kernel: an approved shell call runs the program it asked for; the same call denied, or another one, does not', async () => {
  const asked: string[] = [];
  let answer: 'approve' | 'deny' = 'approve';
  // The person behind the run's door answers (the approvals plugin asks them).
  const door: Plugin = {
    name: 'test-door', version: '1.0.0', kernel: '^1',
    setup(ctx) { ctx.registerDoor({ name: 'test', ask: async (q) => { if (q.kind === 'approval') asked.push(...q.asks.map((a) => a.reason)); return { decision: answer, by: 'tester' }; } }); },
  };
  const llm = scripted([
    { toolCalls: [{ id: 'ls', name: 'shell', args: { command: 'ls', args: ['sub'] } }] },
    (req) => ({ text: String(req.messages.at(-1)!.content) }),
    { toolCalls: [{ id: 'ls2', name: 'shell', args: { command: 'ls', args: ['sub'] } }] },
    (req) => ({ text: String(req.messages.at(-1)!.content) }),
  ]);
  const t = await testKernel({
    dir: f.root, plugins: [llm, sandbox({ files: { read: ['.'] }, exec: { ask: ['ls'] }, confine: false }), tools({ include: ['shell'] }), sqlite({ url: `file:${path.join(tmpdir(), `oryx-ask-${process.pid}-${Date.now()}.db`)}` }), approvals(), door],
    agents: { a: { tools: ['shell'] } },
  });
  try {
    const first = await t.service.process({ agent: 'a', message: 'list', door: 'test' });
    assert.match(first.answer, /file\.txt/, 'approved: ls ran (confined by nothing but the decision) and listed the folder');
    assert.match(asked[0]!, /\["ls","sub"\] needs approval: it matches exec\.ask entry "ls"/);
    answer = 'deny';
    const second = await t.service.process({ agent: 'a', session: first.sessionId, message: 'again', door: 'test' });
    assert.match(second.answer, /^Not run: this call needed a person's approval, and it was denied by tester\./);
  } finally {
    await t.close();
  }
});

test('options: ask lists are checked like the allow-lists, naming the field', () => {
  const bad: [SandboxOptions, RegExp][] = [
    [{ exec: { ask: [{ command: 'git', args: ['('] }] } }, /option exec\.ask\.0\.args\.0 \("\("\) is not a valid regular expression/],
    [{ http: { ask: ['https://x.com/path'] } }, /option http\.ask\.0 .*no path/],
    [{ smtp: { ask: ['smtp.example.com'] } }, /option smtp\.ask\.0 .*must be host:port/],
    [{ files: { ask: { exec: ['x'] } } } as unknown as SandboxOptions, /files\.ask\.exec/],
    [{ exec: { ask: [{ command: 'git', env: ['1BAD'] }] } }, /option exec\.ask\.0\.env\.0/],
  ];
  for (const [options, message] of bad) {
    try {
      sandbox(options);
      assert.unreachable(`accepted ${JSON.stringify(options)}`);
    } catch (error) {
      assert.ok(isOryxError(error) && error.code === 'ORYX_E_SANDBOX_OPTIONS', String(error));
      assert.match((error as Error).message, message);
    }
  }
});

test.run();
