import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.resolve(import.meta.dirname, '../../..');

/** The module URLs a child process resolved in each stage of loading the plugin. */
function loadedByStage(): Record<string, string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'oryx-web-trace-'));
  const file = path.join(dir, 'loaded.txt');
  try {
    const r = spawnSync(process.execPath, [
      '--import', 'tsx', '--import', './test/fixtures/trace-imports.mjs', 'plugins/web/test/fixtures/load-web.ts',
    ], { cwd: root, encoding: 'utf8', env: { ...process.env, ORYX_TRACE_FILE: file } });
    assert.is(r.status, 0, r.stderr);
    const stages: Record<string, string[]> = {};
    let current: string[] = [];
    for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      if (line.startsWith('MARK ')) { stages[line.slice(5)] = current; current = []; } else current.push(line);
    }
    return stages;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hono = (urls: string[]) => urls.filter((u) => /node_modules\/hono\//.test(u));
const nodeServer = (urls: string[]) => urls.filter((u) => /node_modules\/@hono\/node-server\//.test(u));

test('import + factory load no Hono; setup loads hono only; listen loads @hono/node-server', () => {
  const { factory, setup, listen } = loadedByStage();
  assert.ok(factory!.some((u) => u.includes('plugins/web/src/index.ts')), 'the trace sees the plugin');
  assert.equal(hono(factory!), []);
  assert.equal(nodeServer(factory!), []);
  assert.ok(hono(setup!).length > 0, 'setup builds the app');
  assert.equal(nodeServer(setup!), []);
  assert.ok(nodeServer(listen!).length > 0, 'listen loads the server');
});

test.run();
