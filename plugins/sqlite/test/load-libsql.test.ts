// libsql loads without the diagnostic report its loader would gather (src/load-libsql.ts): in a
// fresh process, so libsql is not loaded yet, count the real process.report.getReport() calls.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const source = pathToFileURL(path.resolve(import.meta.dirname, '../src/load-libsql.ts')).href;

function child(load: 'loadLibsql' | 'import'): { reports: number; restored: boolean; answer: unknown; glibc: boolean } {
  const script = `
    const real = process.report.getReport;
    let reports = 0;
    const counted = function (...args) { reports++; return real.apply(process.report, args); };
    process.report.getReport = counted;
    const Database = ${load === 'import' ? "(await import('libsql')).default" : `(await import(${JSON.stringify(source)})).loadLibsql()`};
    const db = new Database(':memory:');
    const answer = db.prepare('SELECT 40 + 2 AS n').get().n;
    db.close();
    const glibc = 'glibcVersionRuntime' in real.call(process.report).header;
    console.log(JSON.stringify({ reports, restored: process.report.getReport === counted, answer, glibc }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: path.resolve(import.meta.dirname, '..'), encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

test('on glibc Linux, libsql loads and works without a diagnostic report, and process.report is as it was', () => {
  const plain = child('import');
  assert.ok(plain.reports >= 1, 'libsql\'s own loader asks for a report (else this test proves nothing)');
  const fast = child('loadLibsql');
  assert.is(fast.answer, 42);
  assert.ok(fast.restored, 'process.report.getReport is the function it was before');
  assert.is(fast.reports, fast.glibc ? 0 : plain.reports, fast.glibc ? 'no report on glibc' : 'elsewhere libsql loads as before');
});

test.run();
