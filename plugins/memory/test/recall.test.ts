import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileMemoryStore } from '../src/file-store.ts';
import { SearchIndex, rank, searchIndexes, tokenize } from '../src/search.ts';

let ws = '';
test.before.each(async () => { ws = await mkdtemp(path.join(tmpdir(), 'oryx-recall-')); });
test.after.each(async () => { await rm(ws, { recursive: true, force: true }); });

async function memoryFile(archive: string[], core: string[] = []): Promise<FileMemoryStore> {
  const file = path.join(ws, 'memory', 'MEMORY.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `# Memory\n\n## Core\n${core.map((c) => `- 2025-01-01: ${c}`).join('\n')}\n\n## Archive\n${archive.join('\n')}\n`);
  return new FileMemoryStore({ workspaceDir: ws });
}

test('tokenize: words folded and stop words dropped; CJK as characters and pairs', () => {
  assert.equal(tokenize("The user's cats like Green-Tea"), ['user', 'cat', 'like', 'green', 'tea']);
  assert.equal(tokenize('用户喜欢'), ['用', '用户', '户', '户喜', '喜', '喜欢', '欢']);
  assert.equal(tokenize('deploy到服务器v2'), ['deploy', '到', '到服', '服', '服务', '务', '务器', '器', 'v2']);
  assert.equal(tokenize('ＡＢＣ'), ['abc']);
});

test('rank: BM25 orders by relevance, returns only matches, ties go to the newer entry', () => {
  const docs = ['the weather was sunny', 'deploy the staging server on friday', 'deploy notes', 'deploy notes'];
  const hits = rank(docs, 'staging deploy', 10);
  assert.is(hits[0]!.index, 1);
  assert.equal(hits.map((h) => h.index).sort(), [1, 2, 3]);
  assert.is(hits[1]!.index, 3, 'equal scores: the later document first');
  assert.equal(rank(docs, 'the of and', 10), [], 'stop words alone match nothing');
  assert.equal(rank(docs, 'deploy', 1).length, 1);
});

test('searchIndexes: several indexes score as one collection (the same as one index of all), ties to the later', () => {
  const docs = ['green tea daily', 'black coffee', 'tea ceremony in kyoto', 'tea', 'tea', 'coffee and tea', 'nothing here'];
  const whole = searchIndexes([new SearchIndex(docs)], 'tea kyoto', 10);
  const split = searchIndexes([new SearchIndex(docs.slice(0, 3)), new SearchIndex(docs.slice(3))], 'tea kyoto', 10);
  const flat = (hits: { source: number; index: number; score: number }[], offsets: number[]) => hits.map((h) => [offsets[h.source]! + h.index, h.score.toFixed(6)]);
  assert.equal(flat(split, [0, 3]), flat(whole, [0]));
  assert.equal(flat(whole, [0]).map(([i]) => i), [2, 4, 3, 5, 0], 'kyoto first; the two equal "tea" entries newest first');
  assert.equal(searchIndexes([new SearchIndex(docs)], 'tea', 2).map((h) => h.index), [4, 3]);
});

test('recall ranks the relevant English entry first and returns dates and scores', async () => {
  const store = await memoryFile([
    '- 2025-01-01: Had lunch, nothing to note.',
    '- 2025-01-05: The staging database password rotates every month; ask Bob.',
    '- 2025-01-09: The user prefers short answers in bullet points.',
    '- 2025-02-01: Staging deploys happen on Fridays.',
    '- 2025-02-03: Meeting about the database migration to Postgres 16.',
  ], ['The user is Ana.']);
  const hits = await store.recall('assistant', 'staging database password');
  assert.is(hits[0]!.text, 'The staging database password rotates every month; ask Bob.');
  assert.is(hits[0]!.date, '2025-01-05');
  assert.ok(hits[0]!.score > hits[1]!.score);
  assert.ok(hits.every((h) => h.score > 0));
  assert.not.ok(hits.some((h) => h.text.includes('lunch')));
  assert.equal(await store.recall('assistant', 'Ana'), [], 'Core is not searched');
  assert.is((await store.recall('assistant', 'staging', 1)).length, 1);
});

test('recall works for Chinese text without spaces', async () => {
  const store = await memoryFile([
    '- 2025-01-01: 今天开会讨论了项目进度。',
    '- 2025-01-02: 用户喜欢喝绿茶，不喜欢咖啡。',
    '- 2025-01-03: 服务器部署在上海机房。',
    '- 2025-01-04: 用户的生日是五月三日。',
  ]);
  const likes = await store.recall('assistant', '用户喜欢');
  assert.is(likes[0]!.text, '用户喜欢喝绿茶，不喜欢咖啡。');
  const server = await store.recall('assistant', '服务器在哪里');
  assert.is(server[0]!.text, '服务器部署在上海机房。');
  const birthday = await store.recall('assistant', '生日');
  assert.equal(birthday.map((h) => h.text), ['用户的生日是五月三日。']);
});

test('recall of a mixed English and Chinese archive', async () => {
  const store = await memoryFile([
    '- 2025-03-01: Deployed v2 to the Shanghai server.',
    '- 2025-03-02: 客户要求周五之前交付 v2 版本。',
    '- 2025-03-03: The office moved to a new building.',
  ]);
  assert.is((await store.recall('assistant', '交付'))[0]!.text, '客户要求周五之前交付 v2 版本。');
  assert.is((await store.recall('assistant', 'shanghai deploy'))[0]!.text, 'Deployed v2 to the Shanghai server.');
});

test.run();
