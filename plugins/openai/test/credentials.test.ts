// A password inside the base URL (`OPENAI_BASE_URL=http://user:password@proxy/v1`, issue 34) is
// masked in every error and never stored: it is registered as a secret at setup, and the URL is
// shown with its credentials as `***` in messages and hints. Node's fetch refuses a URL with
// credentials and quotes it in its error, which is how it reached the run's error before.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
/** What the kernel's secret masking writes in place of a value (kernel/src/secrets.ts). */
const MASK = '***';
import { runOryx, tempProject, testKernel, writeAgents } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openai from '../src/index.ts';

const PASSWORD = 'hunter2-proxy-pass-9876';
const URL_WITH_PASSWORD = `http://bot:${PASSWORD}@127.0.0.1:9/v1`;

test('baseURL with a password: the run error, its hint, llm_calls and runs never hold it, and it is a registered secret', async () => {
  const t = await testKernel({
    plugins: [openai({ baseURL: URL_WITH_PASSWORD, apiKey: 'sk-test-credentials', defaultModel: 'm', maxRetries: 0 }), sqlite(), audit()],
    agents: { assistant: { tools: [] } },
  });
  try {
    assert.is(t.kernel.secrets.mask(`x ${PASSWORD} y`), `x ${MASK} y`);
    const r = await t.service.process({ agent: 'assistant', message: 'hi' });
    assert.is(r.stopReason, 'error');
    assert.is(r.error!.code, 'ORYX_E_LLM_UNREACHABLE');
    assert.match(r.error!.message, 'http://***@127.0.0.1:9/v1');
    assert.match(r.error!.hint!, 'Check that http://***@127.0.0.1:9/v1 is up');
    assert.not.ok(JSON.stringify(r).includes(PASSWORD), JSON.stringify(r.error));
    const db = t.kernel.service('database');
    for (const table of ['llm_calls', 'runs', 'messages']) {
      const rows = await db.query<Record<string, unknown>>(`SELECT * FROM ${table}`);
      assert.ok(table === 'messages' || rows.length > 0, `${table} has rows`);
      assert.not.ok(JSON.stringify(rows).includes(PASSWORD), `${table}: ${JSON.stringify(rows)}`);
    }
  } finally {
    await t.close();
  }
});

test('OPENAI_BASE_URL with a password: oryx run prints the error without it', async () => {
  const dir = await tempProject('openai-credentials-');
  try {
    await mkdir(path.join(dir, '.oryxos'), { recursive: true });
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: [] } });
    await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
export default defineConfig({ plugins: [openai({ defaultModel: 'm', maxRetries: 0 }), sqlite(), audit()] });
`);
    const r = await runOryx(['run', 'hi'], { cwd: dir, env: { OPENAI_BASE_URL: URL_WITH_PASSWORD, OPENAI_API_KEY: 'sk-test-credentials' } });
    assert.is(r.code, 1, r.stdout);
    assert.match(r.stderr, 'error ORYX_E_LLM_UNREACHABLE');
    assert.not.ok(`${r.stdout}${r.stderr}`.includes(PASSWORD), r.stderr);
    const audited = await runOryx(['audit', 'llm', '--json'], { cwd: dir });
    assert.is(audited.code, 0, audited.stderr);
    assert.ok(JSON.parse(audited.stdout).items.length > 0);
    assert.not.ok(audited.stdout.includes(PASSWORD), audited.stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
