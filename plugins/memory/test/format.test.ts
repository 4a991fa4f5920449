import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MEMORY_TEMPLATE, extendArchive, formatEntry, insertEntries, parseMemory } from '../src/format.ts';

const plain = (entries: { date: string; text: string }[]) => entries.map(({ date, text }) => ({ date, text }));

test('the documented format: dated list items under ## Core and ## Archive', () => {
  const p = parseMemory('# Memory\n\n## Core\n\n- 2025-01-02: The user is Ana.\n- 2025-01-03: Ana prefers tea.\n\n## Archive\n\n- 2025-02-01: Shipped v1.\n');
  assert.equal(plain(p.core), [{ date: '2025-01-02', text: 'The user is Ana.' }, { date: '2025-01-03', text: 'Ana prefers tea.' }]);
  assert.equal(plain(p.archive), [{ date: '2025-02-01', text: 'Shipped v1.' }]);
  assert.equal(p.archive[0]!.zone, 'archive');
  assert.is(p.archive[0]!.index, 2);
});

test('an empty file, a whitespace-only file and the template have no entries', () => {
  for (const text of ['', '   \n\n', MEMORY_TEMPLATE, '\uFEFF']) {
    const p = parseMemory(text);
    assert.is(p.core.length + p.archive.length, 0, JSON.stringify(text));
  }
});

test('CRLF files parse like LF files, and a save keeps CRLF', () => {
  const lf = '# Memory\n\n## Core\n- 2025-01-02: one\n  two\n\n## Archive\n- 2025-01-03: three\n';
  const crlf = lf.replace(/\n/g, '\r\n');
  const a = parseMemory(lf);
  const b = parseMemory(crlf);
  assert.equal(plain(b.core), plain(a.core));
  assert.equal(plain(b.archive), plain(a.archive));
  assert.equal(plain(b.core), [{ date: '2025-01-02', text: 'one\ntwo' }]);
  assert.is(b.eol, '\r\n');
  const saved = insertEntries(crlf, 'archive', [{ date: '2025-01-04', text: 'four' }]);
  assert.not.match(saved.replace(/\r\n/g, ''), '\n');
  assert.equal(plain(parseMemory(saved).archive).map((e) => e.text), ['three', 'four']);
});

test('missing headings: only Archive, only Core, none at all', () => {
  const onlyArchive = parseMemory('## Archive\n- 2025-01-01: a\n');
  assert.equal(plain(onlyArchive.archive), [{ date: '2025-01-01', text: 'a' }]);
  assert.is(onlyArchive.core.length, 0);
  const onlyCore = parseMemory('## core\n- 2025-01-01: c\n');
  assert.equal(plain(onlyCore.core), [{ date: '2025-01-01', text: 'c' }]);
  assert.is(onlyCore.archive.length, 0);
  const none = parseMemory('- likes tea\n- 2024-05-06: lives in Lyon\n');
  assert.equal(plain(none.core), [{ date: '', text: 'likes tea' }, { date: '2024-05-06', text: 'lives in Lyon' }]);
  assert.is(none.archive.length, 0);
});

test('text before the first heading: prose is not an entry, list items count as Core', () => {
  const p = parseMemory('Notes the agent keeps.\nSecond line of the intro.\n\n- 2025-01-01: early fact\n\n# Memory\nA description.\n\n## Archive\n- 2025-01-02: later\n');
  assert.equal(plain(p.core), [{ date: '2025-01-01', text: 'early fact' }]);
  assert.equal(plain(p.archive), [{ date: '2025-01-02', text: 'later' }]);
});

test('entries without dates, other bullets, numbered items, paragraphs and lenient date forms', () => {
  const p = parseMemory([
    '## Archive',
    '- no date here',
    '* 2025-03-01 star bullet',
    '+ [2025-03-02] bracketed',
    '1. **2025-03-03**: numbered and bold',
    '- 2025-03-04 — em dash',
    '',
    'A loose paragraph',
    'spanning two lines.',
    '',
    '---',
    '<!-- a comment',
    '- 2099-01-01: inside the comment -->',
    '### 2025 (a sub-heading inside the zone)',
    '- 2025-03-05: after sub-heading',
    '-',
  ].join('\n'));
  assert.equal(plain(p.archive), [
    { date: '', text: 'no date here' },
    { date: '2025-03-01', text: 'star bullet' },
    { date: '2025-03-02', text: 'bracketed' },
    { date: '2025-03-03', text: 'numbered and bold' },
    { date: '2025-03-04', text: 'em dash' },
    { date: '', text: 'A loose paragraph\nspanning two lines.' },
    { date: '2025-03-05', text: 'after sub-heading' },
  ]);
});

test('multi-line entries: indented and lazy continuation lines, nested lists, blank lines inside', () => {
  const p = parseMemory([
    '## Archive',
    '- 2025-01-01: Projects',
    '  - oryx',
    '    - kernel',
    '  - falcon',
    '- 2025-01-02: first line',
    'lazy second line',
    '',
    '  indented after a blank',
    '- 2025-01-03: last',
  ].join('\n'));
  assert.equal(plain(p.archive), [
    { date: '2025-01-01', text: 'Projects\n- oryx\n  - kernel\n- falcon' },
    { date: '2025-01-02', text: 'first line\nlazy second line\n\nindented after a blank' },
    { date: '2025-01-03', text: 'last' },
  ]);
});

test('another level-2 heading ends a zone; what follows it is kept but is not an entry', () => {
  const text = '## Core\n- 2025-01-01: core fact\n\n## Notes\n- not memory\n\n## Archive\n- 2025-01-02: archived\n';
  const p = parseMemory(text);
  assert.equal(plain(p.core).map((e) => e.text), ['core fact']);
  assert.equal(plain(p.archive).map((e) => e.text), ['archived']);
  const saved = insertEntries(text, 'core', [{ date: '2025-01-03', text: 'new core' }]);
  assert.match(saved, '## Notes\n- not memory\n');
  assert.equal(parseMemory(saved).core.map((e) => e.text), ['core fact', 'new core']);
});

test('a very long Core parses whole', () => {
  const lines = Array.from({ length: 400 }, (_, i) => `- 2025-01-01: core fact number ${i} ${'z'.repeat(100)}`);
  const p = parseMemory(`## Core\n${lines.join('\n')}\n## Archive\n- 2025-01-02: a\n`);
  assert.is(p.core.length, 400);
  assert.is(p.core[399]!.text, `core fact number 399 ${'z'.repeat(100)}`);
  assert.is(p.archive.length, 1);
});

test('formatEntry and parseMemory round-trip text that looks like markup', () => {
  const tricky = [
    'plain',
    'line one\n## Core\n- 2020-01-01: not an entry\n<!-- not a comment\n---\n\n\n  indented\ttab',
    '2024-05-05: starts with a date',
    '# a heading-looking first line',
  ];
  let text = MEMORY_TEMPLATE;
  for (const t of tricky) text = insertEntries(text, 'archive', [{ date: '2025-06-01', text: t }]);
  const p = parseMemory(text);
  assert.equal(p.archive.map((e) => e.text), tricky);
  assert.ok(p.archive.every((e) => e.date === '2025-06-01'));
  assert.is(p.core.length, 0);
  assert.is(formatEntry({ date: '2025-01-01', text: 'a\nb' }), '- 2025-01-01: a\n  b');
  assert.is(formatEntry({ date: '', text: 'undated' }), '- undated');
});

test('insertEntries: empty file gets the template, missing zones are added, Core goes before Archive', () => {
  const fresh = insertEntries('', 'archive', [{ date: '2025-01-01', text: 'a' }]);
  assert.is(fresh, '# Memory\n\n## Core\n\n## Archive\n\n- 2025-01-01: a\n');
  const core = insertEntries(fresh, 'core', [{ date: '2025-01-02', text: 'c' }]);
  assert.is(core, '# Memory\n\n## Core\n\n- 2025-01-02: c\n\n## Archive\n\n- 2025-01-01: a\n');
  const noCore = insertEntries('# Mine\n\nhand notes\n\n## Archive\n- 2025-01-01: a\n', 'core', [{ date: '2025-01-02', text: 'c' }]);
  assert.is(noCore, '# Mine\n\nhand notes\n\n## Core\n\n- 2025-01-02: c\n\n## Archive\n- 2025-01-01: a\n');
  const noArchive = insertEntries('- loose fact\n', 'archive', [{ date: '2025-01-02', text: 'x' }]);
  const p = parseMemory(noArchive);
  assert.equal(p.core.map((e) => e.text), ['loose fact']);
  assert.equal(p.archive.map((e) => e.text), ['x']);
});

test('extendArchive gives the parse of the appended text, as parseMemory would', () => {
  const files = [
    '# Memory\n\n## Core\n\n- 2025-01-01: core\n\n## Archive\n\n- 2025-01-02: one\n  continued\n',
    '## Archive\n',
    'preamble\n- undated core\n### Archive\n- [2025-01-03] x\n\n- 2025-01-04: y\n',
  ];
  const added = ['- 2026-11-30: new entry (session s #1)\n', '- 2026-11-30: a\n- 2026-11-30: b\n  second line\n'];
  for (const text of files) {
    for (const add of added) assert.equal(extendArchive(parseMemory(text), add), parseMemory(text + add), JSON.stringify(text + add));
  }
});

test.run();
