// The database across a network: PostgreSQL in one network namespace, OryxOS in another, joined
// by a veth pair. The link is dropped (the database's end goes down: packets vanish, no error
// comes back) while a run waits on a tool; its next commit fails with ORYX_E_PG_UNAVAILABLE in
// bounded time, nothing is half-written, and once the link is back the same process goes on.
// Needs root (ip netns, runuser) and PostgreSQL's server binaries; fails when they are missing.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const sh = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

function pgBin(): string {
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`)) : [];
  const v = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!v) throw new Error('PostgreSQL\'s server binaries are missing (/usr/lib/postgresql/*/bin): apt-get install postgresql, as .ci/run does');
  return `/usr/lib/postgresql/${v}/bin`;
}

test('a dropped link between OryxOS and PostgreSQL: a clear error in bounded time, nothing half-written, recovery when it is back', async () => {
  if (process.getuid?.() !== 0) throw new Error('this test needs root for ip netns (CI runs as root); run it as root');
  const bin = pgBin();
  const id = randomBytes(2).toString('hex');
  const subnet = `10.231.${parseInt(id, 16) % 250}`;
  const [nsDb, nsApp, vDb, vApp] = [`oryxdb-${id}`, `oryxapp-${id}`, `vod${id}`, `voa${id}`];
  const data = await mkdtemp(path.join(tmpdir(), 'oryx-pgns-'));
  const postgresUid = Number(sh('id', '-u', 'postgres').trim());
  const postgresGid = Number(sh('id', '-g', 'postgres').trim());
  await chown(data, postgresUid, postgresGid);
  const cleanup: (() => void)[] = [];
  try {
    sh('ip', 'netns', 'add', nsDb); cleanup.push(() => sh('ip', 'netns', 'del', nsDb));
    sh('ip', 'netns', 'add', nsApp); cleanup.push(() => sh('ip', 'netns', 'del', nsApp));
    sh('ip', 'link', 'add', vDb, 'type', 'veth', 'peer', 'name', vApp);
    sh('ip', 'link', 'set', vDb, 'netns', nsDb);
    sh('ip', 'link', 'set', vApp, 'netns', nsApp);
    for (const [ns, dev, addr] of [[nsDb, vDb, `${subnet}.1/24`], [nsApp, vApp, `${subnet}.2/24`]] as const) {
      sh('ip', '-n', ns, 'link', 'set', 'lo', 'up');
      sh('ip', '-n', ns, 'addr', 'add', addr, 'dev', dev);
      sh('ip', '-n', ns, 'link', 'set', dev, 'up');
    }
    sh('runuser', '-u', 'postgres', '--', `${bin}/initdb`, '-D', `${data}/db`, '-A', 'trust', '-U', 'postgres', '--no-sync');
    const server = spawn('ip', ['netns', 'exec', nsDb, 'runuser', '-u', 'postgres', '--', `${bin}/postgres`, '-D', `${data}/db`,
      '-c', `listen_addresses=${subnet}.1`, '-c', `unix_socket_directories=${data}`, '-c', 'fsync=off', '-c', `hba_file=${data}/db/pg_hba.conf`],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    let serverLog = '';
    server.stderr!.on('data', (d) => { serverLog += d; });
    cleanup.push(() => { server.kill('SIGINT'); });
    sh('sh', '-c', `echo "host all all ${subnet}.0/24 trust" >> ${data}/db/pg_hba.conf`);
    for (let i = 0; !serverLog.includes('ready to accept connections'); i++) {
      if (i > 300 || server.exitCode !== null) throw new Error(`the namespaced PostgreSQL did not start:\n${serverLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const worker = spawn('ip', ['netns', 'exec', nsApp, process.execPath, '--import', 'tsx',
      path.join(import.meta.dirname, 'fixtures', 'netns-worker.mts'), `postgres://postgres@${subnet}.1:5432/postgres`],
    { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    cleanup.push(() => { worker.kill('SIGKILL'); });
    let stderr = '';
    worker.stderr!.on('data', (d) => { stderr += d; });
    const out = readline.createInterface({ input: worker.stdout! })[Symbol.asyncIterator]();
    const expect = async (kind: string) => {
      const line = (await out.next()).value as string | undefined;
      if (!line) throw new Error(`the worker ended before ${kind}:\n${stderr}`);
      const msg = JSON.parse(line);
      assert.is(msg.kind, kind, line);
      return msg;
    };

    await expect('READY');
    await expect('RUNNING');
    sh('ip', '-n', nsDb, 'link', 'set', vDb, 'down'); // the far end goes: packets vanish, no error comes back
    const dropped = Date.now();
    worker.stdin!.write('continue\n');
    const first = await expect('FIRST');
    const took = Date.now() - dropped;
    assert.is(first.stopReason, 'error');
    assert.is(first.error.code, 'ORYX_E_PG_UNAVAILABLE');
    assert.match(first.error.message, `${subnet}.1`);
    assert.match(first.error.message, 'did not answer within');
    assert.ok(took < 20_000, `the failure came in bounded time (${took} ms)`);

    sh('ip', '-n', nsDb, 'link', 'set', vDb, 'up');
    for (let i = 0; ; i++) { // until the address answers again (the neighbour entry recovers)
      try { sh('ip', 'netns', 'exec', nsApp, `${bin}/pg_isready`, '-h', `${subnet}.1`, '-t', '1'); break; } catch (error) { if (i > 60) throw error; }
      await new Promise((r) => setTimeout(r, 250));
    }
    worker.stdin!.write('back\n');
    const again = await expect('AGAIN');
    assert.is(again.stopReason, 'final', JSON.stringify(again.error));
    assert.is(again.answer, 'back again');
    const messages = again.messages as { seq: number; role: string; tool_call_id: string | null }[];
    assert.equal(messages.map((m) => m.seq), messages.map((_, i) => i + 1), 'seq is contiguous');
    assert.is(again.count, messages.length, 'message_count agrees with the rows: no append was half-written');
    assert.equal(messages.slice(0, 2).map((m) => m.role), ['user', 'assistant'], 'what was committed before the drop is there');
    assert.equal(messages.slice(-2).map((m) => m.role), ['user', 'assistant'], 'the run after the link came back is whole');
    const results = messages.filter((m) => m.role === 'tool');
    assert.ok(results.length <= 1 && results.every((m) => m.tool_call_id === 'w1'), 'the tool result is there whole or not at all');
  } finally {
    for (const fn of cleanup.reverse()) { try { fn(); } catch { /* already gone */ } }
    await new Promise((r) => setTimeout(r, 300));
    await rm(data, { recursive: true, force: true });
  }
});

test.run();
