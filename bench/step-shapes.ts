// What each way of cutting a loop step's SQLite writes would buy, for the decisions issue 35's
// last targets need (≤ 8 WAL pages a step, ≤ 0.7× the hand-written peer). Raw libsql on the
// plugins' real schema (no kernel, no plugin code), WAL and `synchronous = NORMAL` as the sqlite
// plugin opens it, 10-step runs as in the peer harness (an `echo` call on steps 1–9, the answer
// on step 10), a new session a run. Each variant gets its own file, first filled with `fill` runs
// of its own shape (so the b-trees have the depth of a used database), then its WAL is emptied
// and `runs` more are timed; every page a commit writes is one WAL frame, so the WAL's frames ÷
// steps are the pages a step writes.
//
//   today      what the stores do now: per step the assistant's commit (its llm_calls row and
//              message), the call's start mark in a commit of its own (call_marks), the result's
//              commit (its tool_invocations row and message); per run the session's row, the
//              user message's commit (message and session row), the run's end (session row,
//              answered marks deleted). Session ids are random (UUIDv4).
//   mark       (a) the start mark in the assistant's commit, not a commit of its own
//   indexes    (b) no by-session index on llm_calls and tool_invocations
//   ordered    (c) time-ordered session ids (the first 12 hex digits a millisecond clock, as UUIDv7)
//   a+b, b+c, a+b+c  those together
//
// Not modelled (the same in every variant): the run record's two commits, the checkpoints.
// Run: npm run build && node --import tsx bench/step-shapes.ts [runs] [fill]   (default 300, 1000)
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rawDatabase, type RawDb as Db } from './raw-libsql.ts';

const RUNS = Number(process.argv[2] ?? 300);
const FILL = Number(process.argv[3] ?? 1000);
const K = 10;
interface Shape { name: string; markInAssistant: boolean; noAuditIndexes: boolean; orderedIds: boolean }
const shapes: Shape[] = [
  { name: 'today', markInAssistant: false, noAuditIndexes: false, orderedIds: false },
  { name: 'mark (a)', markInAssistant: true, noAuditIndexes: false, orderedIds: false },
  { name: 'indexes (b)', markInAssistant: false, noAuditIndexes: true, orderedIds: false },
  { name: 'ordered (c)', markInAssistant: false, noAuditIndexes: false, orderedIds: true },
  { name: 'a+b', markInAssistant: true, noAuditIndexes: true, orderedIds: false },
  { name: 'b+c', markInAssistant: false, noAuditIndexes: true, orderedIds: true },
  { name: 'a+b+c', markInAssistant: true, noAuditIndexes: true, orderedIds: true },
];

async function open(dir: string, shape: Shape): Promise<{ db: Db; file: string }> {
  const file = path.join(dir, `${shape.name.replace(/\W+/g, '-')}.db`);
  const db = await rawDatabase(file, 100000);
  if (shape.noAuditIndexes) db.exec('DROP INDEX llm_calls_by_session; DROP INDEX tool_invocations_by_session');
  return { db, file };
}

/** A UUIDv7-like id: 48 bits of milliseconds, then random. */
const orderedId = () => {
  const random = crypto.randomUUID();
  return `${Date.now().toString(16).padStart(12, '0').replace(/^(.{8})/, '$1-')}${random.slice(13)}`;
};

function runner(db: Db, shape: Shape): () => void {
  const at = () => new Date().toISOString();
  const createSession = db.prepare("INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, turns) VALUES (?, 'bench', '', ?, ?, 0, 0)");
  const touch = db.prepare(`UPDATE sessions SET message_count = message_count + (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1) - counted_seq,
    counted_seq = (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1), turns = turns + ?3, updated_at = ?2 WHERE id = ?1`);
  const append = db.prepare(`INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
    SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, NULL, NULL, ? FROM messages WHERE session_id = ?`);
  const llm = db.prepare(`INSERT INTO llm_calls (session_id, run_id, agent, iteration, attempt, provider, model, input_tokens, output_tokens,
    latency_ms, finish_reason, status, created_at) VALUES (?, ?, 'bench', ?, 1, 'bench', 'bench-model', 100, 10, 0, ?, 'ok', ?)`);
  const tool = db.prepare(`INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars,
    output, output_chars, status, retryable, duration_ms, created_at) VALUES (?, ?, 'bench', ?, ?, 'echo', 'plugin', ?, 14, ?, 4, 'ok', 0, 0, ?)`);
  const mark = db.prepare(`INSERT INTO call_marks (session_id, tool_call_id, run_id, tool, args_hash, started_at, after_seq)
    SELECT ?, ?, ?, 'echo', 'hash', ?, COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?`);
  const settle = db.prepare(`DELETE FROM call_marks WHERE session_id = ? AND EXISTS (SELECT 1 FROM messages r WHERE r.session_id = call_marks.session_id
    AND r.seq > call_marks.after_seq AND r.role = 'tool' AND r.tool_call_id = call_marks.tool_call_id)`);
  const tx = (fn: () => void) => { db.exec('BEGIN IMMEDIATE'); fn(); db.exec('COMMIT'); };
  return () => {
    const id = shape.orderedIds ? orderedId() : crypto.randomUUID();
    const run = crypto.randomUUID();
    createSession.run(id, at(), at());
    tx(() => { append.run(id, 'user', 'say hi via echo', null, null, null, at(), id); touch.run(id, at(), 1); });
    for (let step = 1; step <= K; step++) {
      const now = at();
      const callId = `call_${step}`;
      if (step === K) {
        tx(() => { llm.run(id, run, step, 'stop', now); append.run(id, 'assistant', `done after ${K - 1} tool calls`, null, null, null, now, id); });
        break;
      }
      const calls = JSON.stringify([{ id: callId, name: 'echo', args: { text: `hi ${step}` } }]);
      tx(() => {
        llm.run(id, run, step, 'tool_calls', now);
        append.run(id, 'assistant', '', calls, null, null, now, id);
        if (shape.markInAssistant) mark.run(id, callId, run, now, id);
      });
      if (!shape.markInAssistant) mark.run(id, callId, run, now, id); // a commit of its own
      tx(() => { tool.run(id, run, step, callId, `{"text":"hi ${step}"}`, `hi ${step}`, now); append.run(id, 'tool', `hi ${step}`, null, callId, 'echo', now, id); });
    }
    tx(() => { touch.run(id, at(), 0); settle.run(id); });
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'oryx-shapes-'));
try {
  console.log(`raw libsql, ${RUNS} runs of ${K} steps per variant after ${FILL} runs of fill; per step:`);
  for (const shape of shapes) {
    const { db, file } = await open(dir, shape);
    const run = runner(db, shape);
    for (let i = 0; i < FILL; i++) run();
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const cpu = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < RUNS; i++) run();
    const wall = ((performance.now() - t) * 1000) / (RUNS * K);
    const used = process.cpuUsage(cpu);
    const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    const frames = ((await stat(`${file}-wal`)).size - 32) / (24 + pageSize);
    console.log(`  ${shape.name.padEnd(12)} WAL pages ${(frames / (RUNS * K)).toFixed(1).padStart(5)}   wall ${wall.toFixed(1).padStart(6)} µs   cpu ${((used.user + used.system) / (RUNS * K)).toFixed(1).padStart(6)} µs`);
    db.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
