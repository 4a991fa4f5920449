import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { numberPlaceholders } from '../src/placeholders.ts';
import { decodeText, encodeText } from '../src/values.ts';

test('? becomes $1, $2, … in order; literals, quoted identifiers, comments and dollar quotes are left alone', () => {
  assert.equal(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?) LIMIT ?'), { text: 'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3) LIMIT $4' });
  assert.equal(numberPlaceholders("SELECT '?', 'it''s ?', ? FROM \"odd?name\" -- what?\nWHERE x = ? /* nested /* ? */ ? */ AND y = ?").text,
    "SELECT '?', 'it''s ?', $1 FROM \"odd?name\" -- what?\nWHERE x = $2 /* nested /* ? */ ? */ AND y = $3");
  assert.equal(numberPlaceholders("SELECT E'\\'?', ?").text, "SELECT E'\\'?', $1");
  assert.equal(numberPlaceholders('CREATE FUNCTION f() RETURNS int AS $$ SELECT ? $$ LANGUAGE sql; SELECT $body$ ? $body$, ?').text,
    'CREATE FUNCTION f() RETURNS int AS $$ SELECT ? $$ LANGUAGE sql; SELECT $body$ ? $body$, $1');
});

test('named parameters: one $n per name, casts and $1 left alone; mixing styles is refused', () => {
  assert.equal(numberPlaceholders('INSERT INTO t VALUES (:a, @b, $c, :a)'), { text: 'INSERT INTO t VALUES ($1, $2, $3, $1)', names: ['a', 'b', 'c'] });
  assert.equal(numberPlaceholders("SELECT x::text, '2026-01-01'::date, $1 FROM t WHERE y = $2"), { text: "SELECT x::text, '2026-01-01'::date, $1 FROM t WHERE y = $2" });
  assert.equal(numberPlaceholders('SELECT a:b FROM t').text, 'SELECT a:b FROM t', 'a colon inside a word is no parameter');
  assert.throws(() => numberPlaceholders('SELECT ? , :a'), (e: { code: string }) => e.code === 'ORYX_E_PG_QUERY');
});

test('text TEXT cannot hold is tagged, and a string that looks like a tag is tagged too', () => {
  for (const s of ['plain', '', 'a\0b', '\uD800', 'x\uDFFFy', 'oryx:s:"x"', 'oryx:s:', 'oryx:b:x', '😀']) {
    const stored = encodeText(s);
    assert.not.ok(stored.includes('\0'), 'no NUL reaches the server');
    assert.is(decodeText(stored), s);
  }
  assert.is(encodeText('plain'), 'plain', 'ordinary text is stored as it is');
  assert.is(decodeText('oryx:s:{broken'), 'oryx:s:{broken', 'a hand-edited tag that does not decode is shown as stored');
});

test.run();
