import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memorySection } from '../src/inject.ts';

const entry = (date: string, text: string) => ({ date, text });
const archive = Array.from({ length: 100 }, (_, i) => entry(`2025-01-${String((i % 28) + 1).padStart(2, '0')}`, `archive entry ${String(i).padStart(3, '0')} ${'a'.repeat(60)}`))
  .sort((x, y) => x.date.localeCompare(y.date));
const core = [entry('2024-12-01', 'The user is Ana.'), entry('2024-12-02', 'Ana prefers metric units.')];

test('everything fits: Core and the whole Archive, nothing reported cut', () => {
  const s = memorySection({ core, archive: archive.slice(0, 3) }, { budgetChars: 4000, recallHint: true });
  for (const e of [...core, ...archive.slice(0, 3)]) assert.match(s.content, e.text);
  assert.equal(s.cut, []);
  assert.is(s.archiveShown, 3);
});

test('truncation keeps the newest archive entries, in file order, and never touches Core', () => {
  const s = memorySection({ core, archive }, { budgetChars: 2000, recallHint: true });
  assert.ok(s.content.length <= 2000, `${s.content.length} chars`);
  for (const e of core) assert.match(s.content, `- ${e.date}: ${e.text}`);
  assert.ok(s.archiveShown > 0 && s.archiveShown < 100);
  const shown = archive.filter((e) => s.content.includes(e.text));
  assert.is(shown.length, s.archiveShown);
  const newest = [...archive].map((e, i) => ({ e, i })).sort((a, b) => b.e.date.localeCompare(a.e.date) || b.i - a.i)
    .slice(0, s.archiveShown).map((x) => x.e);
  assert.equal(new Set(shown), new Set(newest), 'exactly the newest entries are kept');
  const positions = shown.map((e) => s.content.indexOf(e.text));
  assert.equal(positions, [...positions].sort((a, b) => a - b), 'kept entries stay in file order');
  assert.match(s.content, `(${100 - s.archiveShown} older archive entries`);
  assert.match(s.content, 'recall_memory');
  assert.is(s.cut.length, 1);
  assert.is(s.cut[0]!.section, 'memory:archive');
  const leftOut = archive.filter((e) => !shown.includes(e)).reduce((n, e) => n + `- ${e.date}: ${e.text}`.length + 1, 0);
  assert.is(s.cut[0]!.chars, leftOut);
  assert.match(s.cut[0]!.reason, `${100 - s.archiveShown} of 100 archive entries`);
});

test('newest means by date; among equal dates (and undated) later in the file wins', () => {
  const pad = 'p'.repeat(60);
  const mixed = [entry('2025-05-01', `NEWEST-BY-DATE ${pad}`), entry('', `UNDATED ${pad}`), entry('2025-01-01', `OLD-A ${pad}`), entry('2025-01-01', `OLD-B ${pad}`)];
  const one = memorySection({ core: [], archive: mixed }, { budgetChars: 320, recallHint: false });
  assert.is(one.archiveShown, 1, one.content);
  assert.match(one.content, 'NEWEST-BY-DATE');
  const two = memorySection({ core: [], archive: mixed }, { budgetChars: 400, recallHint: false });
  assert.is(two.archiveShown, 2, two.content);
  assert.match(two.content, 'OLD-B');
  assert.not.match(two.content, 'OLD-A');
  assert.not.match(two.content, 'recall_memory', 'no recall hint when the agent lacks the tool');
  assert.ok(two.content.length <= 400);
  const three = memorySection({ core: [], archive: mixed }, { budgetChars: 455, recallHint: false });
  assert.is(three.archiveShown, 3, three.content);
  assert.not.match(three.content, 'UNDATED', 'undated counts as oldest');
});

test('a Core larger than the budget is injected whole and the report says so', () => {
  const big = Array.from({ length: 50 }, (_, i) => entry('2025-01-01', `core fact ${i} ${'c'.repeat(100)}`));
  const s = memorySection({ core: big, archive: archive.slice(0, 5) }, { budgetChars: 1000, recallHint: true });
  for (const e of big) assert.match(s.content, e.text);
  assert.is(s.archiveShown, 0);
  const coreCut = s.cut.find((c) => c.section === 'memory:core')!;
  assert.is(coreCut.chars, 0);
  assert.match(coreCut.reason, 'injected whole');
  assert.match(coreCut.reason, `Core is ${s.coreChars.toLocaleString('en-US')} characters`);
  const archiveCut = s.cut.find((c) => c.section === 'memory:archive')!;
  assert.match(archiveCut.reason, '5 of 5 archive entries');
});

test.run();
