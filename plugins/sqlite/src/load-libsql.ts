import { createRequire } from 'node:module';
import type LibsqlDatabase from 'libsql';

interface DetectLibc { familySync(): string | null; versionSync(): string | null; GLIBC: string }

/**
 * libsql's `Database` class, loaded without the diagnostic report its loader asks for.
 *
 * To pick its native build (glibc or musl) libsql's loader calls `process.report.getReport()`,
 * which gathers a whole diagnostic report (~5 ms, on every command that opens the database), and
 * reads only `header.glibcVersionRuntime`. detect-libc, which the same loader uses, answers the
 * question from `/usr/bin/ldd` in microseconds. When it says glibc, a report asked for while
 * libsql loads is just that header; in every other case (musl, unknown, not Linux) libsql loads
 * as it always did. The report function is put back before this returns.
 */
export function loadLibsql(): typeof LibsqlDatabase {
  const require = createRequire(import.meta.url);
  const load = () => require('libsql') as typeof LibsqlDatabase;
  const report = process.report;
  const real = report?.getReport;
  if (process.platform !== 'linux' || typeof real !== 'function') return load();
  let glibc: string | null = null;
  try {
    const libc = createRequire(require.resolve('libsql'))('detect-libc') as DetectLibc;
    if (libc.familySync() === libc.GLIBC) glibc = libc.versionSync();
  } catch {
    // detect-libc not where libsql's loader finds it: nothing to shortcut.
  }
  if (!glibc) return load();
  const version = glibc;
  report.getReport = (() => ({ header: { glibcVersionRuntime: version } })) as unknown as typeof real;
  try {
    return load();
  } finally {
    report.getReport = real;
  }
}
