// Deny entries survive renames. `conf/secrets` (a folder) and `keys/id.txt` (a file) are denied.
// A confined program cannot rename the folder's parent (it is pinned in place) nor the denied
// file; and when something unconfined renames, moves or hard-links them (another process, or
// `confine: false`), the tools still refuse them at their new names — by identity, recorded at
// start and kept in the workspace — in this process and after the next start. Confined programs
// do not see a denied folder at its new place either. Real files, real bubblewrap.
import { link, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import tools from '@oryxos/plugin-tools';
import sandbox, { type SandboxOptions } from '../src/index.ts';
import { afterToolProbe } from './fixture.ts';

const ANY = '[\\s\\S]*';
let root: string;

test.before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'oryx-rename-'));
  await mkdir(path.join(root, 'conf', 'secrets'), { recursive: true });
  await mkdir(path.join(root, 'keys'));
  await writeFile(path.join(root, 'conf', 'secrets', 'key.txt'), 'SECRET-FOLDER-KEY');
  await writeFile(path.join(root, 'conf', 'app.toml'), 'name = "app"\n');
  await writeFile(path.join(root, 'keys', 'id.txt'), 'SECRET-FILE-KEY');
});
test.after(async () => { await rm(root, { recursive: true, force: true }); });

const policy = (extra: Partial<NonNullable<SandboxOptions['files']>> = {}): SandboxOptions => ({
  files: { read: ['.'], write: ['.'], deny: ['conf/secrets', 'keys/id.txt'], ...extra },
  exec: { allow: [{ command: 'sh', args: ['-c'], rest: ANY }] },
});

async function turn(calls: { name: string; args: Record<string, unknown> }[], options = policy()): Promise<{ status: string; content: string }[]> {
  const seen: Parameters<typeof afterToolProbe>[0] = [];
  const llm = scripted([{ toolCalls: calls.map((c, i) => ({ id: `c${i + 1}`, ...c })) }, { text: 'done' }]);
  const t: TestKernel = await testKernel({ dir: root, plugins: [llm, sandbox(options), tools(), afterToolProbe(seen)], agents: { assistant: { tools: ['*'] } } });
  try {
    await t.service.process({ agent: 'assistant', message: 'go' });
  } finally {
    await t.close({ keep: true });
  }
  return seen.map((s) => ({ status: s.status, content: s.result.content }));
}
const read = (p: string) => ({ name: 'read_file', args: { path: p } });
const sh = (script: string) => ({ name: 'shell', args: { command: 'sh', args: ['-c', script] } });

test('inside confinement: the parent of a denied folder and a denied file cannot be renamed, linked or read', async () => {
  const [mvParent, mvDir, mvFile, ln, cat] = await turn([
    sh('mv conf conf2'), sh('mv conf/secrets conf/open'), sh('mv keys/id.txt keys/moved.txt'), sh('ln keys/id.txt linked.txt'), sh('cat conf/secrets/key.txt keys/id.txt'),
  ]);
  for (const r of [mvParent, mvDir, mvFile, ln]) {
    assert.is(r!.status, 'error', r!.content);
    assert.match(r!.content, /Device or resource busy|Invalid cross-device link|Read-only file system|Operation not permitted/);
  }
  assert.not.match(cat!.content, /SECRET-/);
  assert.is(await readFile(path.join(root, 'conf', 'secrets', 'key.txt'), 'utf8'), 'SECRET-FOLDER-KEY', 'nothing moved');
  const other = await turn([sh('mv conf/app.toml conf/app2.toml && mv conf/app2.toml conf/app.toml && echo renamed')]);
  assert.is(other[0]!.status, 'ok', `a folder holding a deny entry stays writable: ${other[0]!.content}`);
});

test('renamed and hard-linked outside confinement: denied at the new names, now and after the next start', async () => {
  await turn([read('conf/app.toml')]); // a start records what the deny entries are
  await rename(path.join(root, 'conf'), path.join(root, 'conf2'));
  await rename(path.join(root, 'keys', 'id.txt'), path.join(root, 'elsewhere.txt'));
  await link(path.join(root, 'elsewhere.txt'), path.join(root, 'hardlink.txt'));
  try {
    const calls = [read('conf2/secrets/key.txt'), read('elsewhere.txt'), read('hardlink.txt'), { name: 'list_dir', args: { path: 'conf2/secrets' } }];
    // allowHardLinks: true, so only the identity can refuse the link.
    const now = await turn(calls, policy({ allowHardLinks: true }));
    const later = await turn(calls, policy({ allowHardLinks: true })); // a fresh start: the paths on the deny list exist no more
    for (const [i, r] of [...now, ...later].entries()) {
      assert.is(r.status, 'denied', `call ${i % 4 + 1}: ${r.content}`);
      assert.not.match(r.content, /SECRET-/);
    }
    // Read-only calls of one turn run concurrently: the results come in any order.
    const reasons = later.map((r) => r.content);
    for (const expected of [
      /read of "\S+\/conf2\/secrets\/key\.txt" is not allowed: "conf2\/secrets" is conf\/secrets under another name \(renamed or moved\), and conf\/secrets is on the sandbox deny list/,
      /read of "\S+\/elsewhere\.txt" is not allowed: it is a hard link to keys\/id\.txt \(or that file moved here\), and keys\/id\.txt is on the sandbox deny list/,
      /read of "\S+\/hardlink\.txt" is not allowed: it is a hard link to keys\/id\.txt/,
      /read of "\S+\/conf2\/secrets" is not allowed: it is conf\/secrets under another name/,
    ]) assert.ok(reasons.some((r) => expected.test(r)), `${expected}:\n${reasons.join('\n')}`);
    // Confined programs do not see the moved folder either: it is found by identity and masked.
    const [cat] = await turn([sh('cat conf2/secrets/key.txt; ls conf2/secrets | wc -l')]);
    assert.not.match(cat!.content, /SECRET-FOLDER-KEY/);
    assert.match(cat!.content, /^0$/m);
  } finally {
    await rm(path.join(root, 'hardlink.txt'), { force: true });
    await rename(path.join(root, 'elsewhere.txt'), path.join(root, 'keys', 'id.txt'));
    await rename(path.join(root, 'conf2'), path.join(root, 'conf'));
  }
});

test('control: the files read again once back at their names are still denied, and others are read', async () => {
  const [secret, ok] = await turn([read('conf/secrets/key.txt'), read('conf/app.toml')]);
  assert.is(secret!.status, 'denied');
  assert.match(secret!.content, /conf\/secrets is on the sandbox deny list/);
  assert.is(ok!.status, 'ok', ok!.content);
});

test.run();
