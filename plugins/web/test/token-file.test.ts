import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OryxError } from '@oryxos/provider-spec';
import { loadTokenFile } from '../src/token-file.ts';
import { startWeb } from './helpers.ts';

let dir: string;
test.before.each(async () => { dir = await mkdtemp(path.join(tmpdir(), 'oryx-web-token-')); });
test.after.each(async () => { await rm(dir, { recursive: true, force: true }); });

const mode = async (file: string) => (await stat(file)).mode & 0o777;

test('the first load creates a 256-bit token in a 0600 file (and its folder); the next loads reuse it', async () => {
  const file = path.join(dir, 'new-workspace', 'web-token');
  const first = await loadTokenFile(file);
  assert.ok(first.created);
  assert.match(first.token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  assert.is((await readFile(file, 'utf8')).trim(), first.token);
  assert.is(await mode(file), 0o600);
  const again = await loadTokenFile(file);
  assert.equal(again, { token: first.token, created: false, tightened: false });
});

test('servers starting at once all end up with one token', async () => {
  const file = path.join(dir, 'web-token');
  const loads = await Promise.all(Array.from({ length: 8 }, () => loadTokenFile(file)));
  assert.is(new Set(loads.map((l) => l.token)).size, 1);
  assert.is(loads.filter((l) => l.created).length, 1);
  assert.is((await readFile(file, 'utf8')).trim(), loads[0]!.token);
});

test('rotate replaces the token, keeping the mode 0600', async () => {
  const file = path.join(dir, 'web-token');
  const { token } = await loadTokenFile(file);
  const rotated = await loadTokenFile(file, { rotate: true });
  assert.ok(rotated.created);
  assert.is.not(rotated.token, token);
  assert.is((await loadTokenFile(file)).token, rotated.token);
  assert.is(await mode(file), 0o600);
});

test('a file others can read is set back to 0600 and reported; a file without a token is an error naming the fix', async () => {
  const file = path.join(dir, 'web-token');
  await writeFile(file, 'a-token-written-by-hand-0123456789\n');
  await chmod(file, 0o644);
  const loaded = await loadTokenFile(file);
  assert.equal(loaded, { token: 'a-token-written-by-hand-0123456789', created: false, tightened: true });
  assert.is(await mode(file), 0o600);
  for (const content of ['', 'short', 'two words in here, long enough\n']) {
    await writeFile(file, content);
    try {
      await loadTokenFile(file);
      assert.unreachable(JSON.stringify(content));
    } catch (error) {
      assert.is((error as OryxError).code, 'ORYX_E_WEB_TOKEN_FILE');
      assert.match((error as OryxError).message, file);
      assert.match((error as OryxError).hint ?? '', '--new-token');
    }
  }
});

test('the service: token() reads the file, rotateToken() replaces it and the old token stops working at once', async () => {
  const h = await startWeb();
  try {
    assert.is(await h.web.token(), h.token);
    assert.is(h.web.tokenFile, path.join(h.kernel.config.workspaceDir, 'web-token'));
    const fresh = await h.web.rotateToken();
    assert.is.not(fresh, h.token);
    assert.is((await readFile(h.web.tokenFile, 'utf8')).trim(), fresh);
    assert.is((await fetch(`${h.url}/api/info`, { headers: h.auth })).status, 401);
    assert.is((await fetch(`${h.url}/api/info`, { headers: { authorization: `Bearer ${fresh}` } })).status, 200);
  } finally {
    await h.close();
  }
  const configured = await startWeb({ web: { token: 'a-configured-token-0123456789' }, listen: false });
  try {
    let error: unknown;
    await configured.web.rotateToken().catch((e) => { error = e; });
    assert.is((error as OryxError).code, 'ORYX_E_WEB_OPTIONS');
    assert.match((error as OryxError).message, 'web({ token })');
  } finally {
    await configured.close();
  }
});

test.run();
