// The PostgreSQL server the tests use: ORYX_TEST_PG_URL (default: the role `.ci/run` creates on
// the local cluster). Each test file gets a fresh database of its own, dropped at the end. A
// server that is down fails the tests loudly, naming how to start it; nothing is skipped.
import { randomBytes } from 'node:crypto';
import postgresClient from 'postgres';

export const ADMIN_URL = process.env.ORYX_TEST_PG_URL ?? 'postgres://oryx:oryx@127.0.0.1:5432/postgres';

/** The URL of database `name` on the test server. */
export function urlOf(name: string, base = ADMIN_URL): string {
  const u = new URL(base.replace(/^postgres(ql)?:/, 'http:'));
  u.pathname = `/${name}`;
  return u.toString().replace(/^http:/, 'postgres:');
}

/** A fresh, empty database; `drop()` removes it (ending what is still connected to it). */
export async function freshDatabase(prefix = 'oryx_t'): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgresClient(ADMIN_URL, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (error) {
    await admin.end({ timeout: 1 });
    throw new Error(`The PostgreSQL test server at ${ADMIN_URL.replace(/:[^:@/]*@/, ':***@')} is not usable (${(error as Error).message}). `
      + 'Start it as .ci/run does (pg_ctlcluster --skip-systemctl-redirect 15 main start, role oryx/oryx with CREATEDB), or set ORYX_TEST_PG_URL.');
  }
  await admin.end({ timeout: 1 });
  return {
    name,
    url: urlOf(name),
    async drop() {
      const a = postgresClient(ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        // FORCE cannot end a backend of another role: an autovacuum worker that happens to be on
        // the database refuses it for a moment; it finishes soon, so try again.
        for (let attempt = 1; ; attempt++) {
          try {
            await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            break;
          } catch (error) {
            if (attempt >= 20 || !/member of the role whose process is being terminated/.test((error as Error).message)) throw error;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
      } finally {
        await a.end({ timeout: 1 });
      }
    },
  };
}
