// How low can a loop step's SQLite cost go while every message is durable before the next step?
// Raw libsql (no kernel, no plugin code) on a file with the real schema (the sqlite and audit
// plugins' migrations), WAL and `synchronous = NORMAL` as the plugin opens it, 10-step runs as
// in the peer harness (19 message commits a run: the assistant's call before its tool runs, the
// tool's result before the next model call, the last answer), a new session per run:
//
//   today    each commit: BEGIN IMMEDIATE, the audit row, the message, COMMIT (since SQLite
//            schema 8 a message to the newest session writes no session row: its count is
//            derived from counted_seq), and the session row once at the run's end
//   floor    each commit: one row (the message's columns) appended to a table without indexes,
//            nothing else: the least any design writes while each message is durable on its own
//   journal  floor's commits, then at the run's end one
//            transaction moving the run's rows into the real tables (messages, llm_calls,
//            tool_invocations, the session row) in four statements run inside SQLite, and
//            deleting them from the journal: the cheapest way to keep today's tables
//
// Run: npm run build && node --import tsx bench/sqlite-floor.ts [runs]   (default 400 per variant)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rawDatabase, type RawDb as Db } from './raw-libsql.ts';

const RUNS = Number(process.argv[2] ?? 400);
const K = 10;

/** A file with the plugins' tables, opened raw with the pragmas the sqlite plugin sets. */
async function fresh(dir: string, name: string): Promise<Db> {
  const raw = await rawDatabase(path.join(dir, `${name}.db`), 10000);
  raw.exec(`CREATE TABLE journal (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, iteration INTEGER, role TEXT NOT NULL,
    content TEXT NOT NULL, tool_calls TEXT, tool_call_id TEXT, name TEXT, created_at TEXT NOT NULL)`);
  return raw;
}

const at = () => new Date().toISOString();
const message = (i: number) => (i % 2 === 0
  ? { role: 'assistant', content: '', toolCalls: JSON.stringify([{ id: `call_${i}`, name: 'echo', args: { text: `hi ${i}` } }]) }
  : { role: 'tool', content: `hi ${i - 1}`, toolCallId: `call_${i - 1}`, name: 'echo' });

function variant(db: Db, kind: 'today' | 'floor' | 'journal'): () => void {
  const createSession = db.prepare("INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count) VALUES (?, 'bench', '', ?, ?, 0)");
  const touch = db.prepare(`UPDATE sessions SET message_count = message_count + (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1) - counted_seq,
    counted_seq = (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1), updated_at = ?2 WHERE id = ?1`);
  const append = db.prepare(`INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
    SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, NULL, NULL, ? FROM messages WHERE session_id = ?`);
  const llm = db.prepare(`INSERT INTO llm_calls (session_id, run_id, agent, iteration, attempt, provider, model, input_tokens, output_tokens,
    latency_ms, finish_reason, status, created_at) VALUES (?, 'run', 'bench', ?, 1, 'bench', 'bench-model', 100, 10, 0, 'tool_calls', 'ok', ?)`);
  const tool = db.prepare(`INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars,
    output, output_chars, status, retryable, duration_ms, created_at) VALUES (?, 'run', 'bench', ?, ?, 'echo', 'plugin', ?, 14, ?, 4, 'ok', 0, 0, ?)`);
  const journal = db.prepare(`INSERT INTO journal (session_id, iteration, role, content, tool_calls, tool_call_id, name, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const fold = [
    db.prepare(`INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at)
      SELECT session_id, (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1) + row_number() OVER (ORDER BY id),
        role, content, tool_calls, tool_call_id, name, created_at FROM journal WHERE session_id = ?1 ORDER BY id`),
    db.prepare(`INSERT INTO llm_calls (session_id, run_id, agent, iteration, attempt, provider, model, input_tokens, output_tokens,
      latency_ms, finish_reason, status, created_at)
      SELECT session_id, 'run', 'bench', iteration, 1, 'bench', 'bench-model', 100, 10, 0, 'tool_calls', 'ok', created_at
      FROM journal WHERE session_id = ?1 AND role = 'assistant' ORDER BY id`),
    db.prepare(`INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars,
      output, output_chars, status, retryable, duration_ms, created_at)
      SELECT session_id, 'run', 'bench', iteration, tool_call_id, 'echo', 'plugin', '{"text":"hi"}', 14, content, 4, 'ok', 0, 0, created_at
      FROM journal WHERE session_id = ?1 AND role = 'tool' ORDER BY id`),
    db.prepare(`UPDATE sessions SET message_count = message_count + (SELECT COUNT(*) FROM journal WHERE session_id = ?1), updated_at = ?2
      WHERE id = ?1`),
    db.prepare('DELETE FROM journal WHERE session_id = ?1'),
  ];
  const tx = (fn: () => void) => { db.exec('BEGIN IMMEDIATE'); fn(); db.exec('COMMIT'); };
  const auditRow = (id: string, i: number, m: ReturnType<typeof message>, now: string) => {
    if (m.role === 'assistant') llm.run(id, i, now);
    else tool.run(id, i, m.toolCallId!, '{"text":"hi"}', m.content, now);
  };
  let n = 0;
  return () => {
    const id = `session-${kind}-${n++}`;
    createSession.run(id, at(), at());
    for (let i = 0; i < 2 * K - 1; i++) {
      const m = message(i);
      const now = at();
      if (kind === 'today') {
        tx(() => {
          auditRow(id, i, m, now);
          append.run(id, m.role, m.content, m.toolCalls ?? null, m.toolCallId ?? null, m.name ?? null, now, id);
        });
      } else {
        journal.run(id, i, m.role, m.content, m.toolCalls ?? null, m.toolCallId ?? null, m.name ?? null, now);
      }
    }
    if (kind === 'today') tx(() => touch.run(id, at()));
    if (kind !== 'journal') return;
    tx(() => { for (const [i, statement] of fold.entries()) statement.run(...(i === 3 ? [id, at()] : [id])); });
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'oryx-floor-'));
try {
  console.log(`raw libsql, ${RUNS} runs of ${K} steps per variant (after ${Math.ceil(RUNS / 10)} warm-up runs), µs per step:`);
  for (const kind of ['today', 'floor', 'journal'] as const) {
    const db = await fresh(dir, kind);
    const run = variant(db, kind);
    for (let i = 0; i < Math.ceil(RUNS / 10); i++) run();
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < RUNS; i++) run();
    const wall = ((performance.now() - t) * 1000) / (RUNS * K);
    const used = process.cpuUsage(cpu);
    console.log(`  ${kind.padEnd(8)} wall ${wall.toFixed(1).padStart(6)}  cpu ${((used.user + used.system) / (RUNS * K)).toFixed(1).padStart(6)}`);
    db.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
