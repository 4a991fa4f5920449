// The web console in a real browser: Debian's Chromium (plugins/web/test/browser.ts) against the
// built `oryx web` on loopback, whose model is a loopback server speaking OpenAI's wire protocol
// (test/fixtures/console-harness.ts). Build first (`npm test` does). Each test saves a screenshot
// under the project's temp folder when it fails, and the folder is then kept (its path is printed).
// ORYX_UPDATE_SCREENSHOT=1 also writes the chat with tool calls to docs/console.png (the README's).
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { runOryx } from '@oryxos/kernel/testing';
import { screenshot, startConsole, streamGates, watchConsole, type ConsoleHarness } from './fixtures/console-harness.ts';

// What the functions given to page.evaluate and waitForFunction use: they run in the page. The
// tests compile without the DOM library, so these names are declared for this file only.
declare const document: any, window: any, sessionStorage: any, getComputedStyle: any;

let h: ConsoleHarness | undefined;
let failed = false;

test.after(async () => {
  if (failed && h) console.log(`console tests: screenshots and the project kept in ${h.dir}`);
  await h?.close(failed);
});

/**
 * Runs one browser test on a fresh page: fails loudly (a missing Chromium included), saves a
 * screenshot when it fails, and checks that the page logged no error or warning.
 */
function browserTest(name: string, fn: (page: Page, h: ConsoleHarness, errors: string[]) => Promise<void>, options: { allowErrors?: RegExp } = {}) {
  test(name, async () => {
    h ??= await startConsole();
    const page = await h.browser.newPage();
    const errors = watchConsole(page);
    try {
      await fn(page, h, errors);
      const unexpected = errors.filter((e) => !options.allowErrors?.test(e));
      assert.equal(unexpected, [], 'no error or warning on the browser console');
    } catch (error) {
      failed = true;
      const file = await screenshot(page, h.dir, name).catch((e: Error) => `(no screenshot: ${e.message})`);
      throw Object.assign(error as Error, { message: `${(error as Error).message}\nscreenshot: ${file}\nbrowser console:\n${errors.join('\n')}` });
    } finally {
      await page.close();
    }
  });
}

/** Opens the console signed in through the URL fragment, as `oryx web` prints it. */
async function open(page: Page, h: ConsoleHarness, hash = ''): Promise<void> {
  await page.goto(`${h.url}/#token=${h.token}${hash ? `&${hash}` : ''}`);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}

/** How many runs have ended in the page's chat. */
const runsEnded = async (page: Page) => Number(await page.locator('section.chat').getAttribute('data-runs-ended'));

/** Types a message and sends it with Enter; returns a promise that the run has ended. */
async function send(page: Page, text: string): Promise<() => Promise<void>> {
  const before = await runsEnded(page);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  return async () => { await page.waitForFunction((n) => Number(document.querySelector('section.chat')?.getAttribute('data-runs-ended')) > n, before); };
}

browserTest('the page needs no token, asks for one once, explains a wrong one, and keeps the right one for the tab', async (page, h) => {
  const res = await page.goto(`${h.url}/`);
  assert.is(res?.status(), 200);
  const csp = (await res!.allHeaders())['content-security-policy'] ?? '';
  assert.match(csp, "default-src 'self'");
  assert.match(csp, "script-src 'self'");
  assert.not.match(csp, 'unsafe-inline');
  const input = page.getByLabel('Token');
  await input.fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'refused this token' }).waitFor();
  assert.match(await page.getByRole('alert').textContent() ?? '', 'ORYX_E_WEB_UNAUTHORIZED');
  await input.fill(h.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('oryx-token')), h.token);
  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.is(await page.getByLabel('Token').count(), 0, 'not asked again in the same tab');

  // The address oryx web prints: the token is taken from the fragment, which is then cleared.
  const other = await h.browser.newPage();
  try {
    await open(other, h);
    assert.not.match(other.url(), 'token', 'the token is gone from the address bar');
  } finally {
    await other.close();
  }
}, { allowErrors: /status of 401/ });

browserTest('an answer streams in token by token: two partial texts are on screen before the run is done', async (page, h) => {
  await open(page, h);
  const answered = await send(page, 'stream please');
  const answer = page.locator('.msg.assistant').last();
  const text = async () => (await answer.locator('.md').textContent())?.trim();
  await page.waitForFunction(() => document.querySelector('.msg.assistant:last-of-type')?.textContent?.includes('Hello'));
  const first = await text();
  assert.is(await answer.getAttribute('data-state'), 'streaming');
  streamGates.first.open();
  await page.waitForFunction(() => document.querySelector('.msg.assistant:last-of-type')?.textContent?.includes('wide'));
  const second = await text();
  assert.is(await answer.getAttribute('data-state'), 'streaming');
  assert.is(first, 'Hello', 'the first state is partial');
  assert.is(second, 'Hello, wide');
  streamGates.second.open();
  await answered();
  assert.is(await page.locator('.msg.assistant').last().locator('.md').textContent().then((t) => t?.trim()), 'Hello, wide world.');
  assert.is(await page.locator('.msg.assistant').last().getAttribute('data-state'), 'done');
});

/** The session on screen, from the address bar (`#s=<id>`). */
const sessionOf = (page: Page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('s') ?? '';

/** `GET` on the API with the token, as a client outside the browser. */
async function api(h: ConsoleHarness, route: string): Promise<any> {
  const res = await fetch(`${h.url}${route}`, { headers: { authorization: `Bearer ${h.token}` } });
  assert.is(res.status, 200, `${route}: ${res.status}`);
  return res.json();
}

browserTest('tool calls show as cards with their results, a denied call with the sandbox reason; the timeline has every call', async (page, h) => {
  await page.setViewportSize({ width: 1280, height: 880 });
  await open(page, h);
  const answered = await send(page, 'use tools');
  // The first card is there while the run goes on, before the answer.
  await page.locator('details.tool').first().waitFor();
  await answered();
  const shot = await screenshot(page, h.dir, 'console');
  if (process.env.ORYX_UPDATE_SCREENSHOT) await copyFile(shot, path.resolve('docs/console.png'));
  const cards = page.locator('details.tool');
  assert.is(await cards.count(), 2);
  const read = cards.nth(0);
  assert.is(await read.getAttribute('data-status'), 'ok');
  assert.match(await read.locator('summary').textContent() ?? '', /read_file.*\d+ ms/);
  await read.locator('summary').click();
  assert.match(await read.locator('.args').textContent() ?? '', '"path": "notes.md"');
  assert.match(await read.locator('.result').textContent() ?? '', 'Ship on Friday');
  const denied = cards.nth(1);
  assert.is(await denied.getAttribute('data-status'), 'denied');
  assert.match(await denied.locator('summary .reason').textContent() ?? '', /read of "\/etc\/hostname" is not allowed: it is outside the read roots/);
  // The answer is Markdown: bold, a table, a code block.
  const answer = page.locator('.msg.assistant .md').last();
  assert.is(await answer.locator('strong').textContent(), 'ship on Friday');
  assert.is(await answer.locator('table tr').count(), 3);
  assert.is(await answer.locator('pre code').textContent(), 'const answer = 42;\n');

  await page.getByRole('button', { name: 'Timeline' }).click();
  const run = page.locator('article.run');
  await run.first().waitFor();
  assert.is(await run.count(), 1);
  assert.is(await run.locator('.entry.llm-call').count(), 3, 'three model calls');
  assert.is(await run.locator('.entry.tool-call').count(), 2, 'two tool calls');
  assert.is(await run.locator('.entry.tool-call.denied').count(), 1);
  assert.match(await run.locator('.totals').textContent() ?? '', /3 model calls · 540 tokens in · 96 out · 2 tool calls · 1 denied/);
  const colour = (selector: string) => run.locator(selector).first().evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.is.not(await colour('.entry.tool-call.denied .bar'), await colour('.entry.tool-call.ok .bar'), 'a denial has its own colour');
  assert.match(await run.locator('.entry.llm-call').first().textContent() ?? '', /^model m\s*\d+ ms 120 → 18 tokens · tool_calls$/);
});

browserTest('a reload keeps the session in the list, and its history with tool cards as they were', async (page, h) => {
  await open(page, h);
  await (await send(page, 'use tools again'))();
  const id = sessionOf(page);
  assert.ok(id, 'the session is in the address');
  await page.reload();
  const entry = page.locator(`button.session[data-session="${id}"]`);
  await entry.waitFor();
  assert.is(await entry.getAttribute('aria-current'), 'page');
  assert.match(await entry.textContent() ?? '', 'use tools again');
  await page.locator('details.tool').nth(1).waitFor();
  assert.equal(await page.locator('details.tool').evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))), ['ok', 'denied']);
  assert.match(await page.locator('details.tool').nth(1).textContent() ?? '', 'outside the read roots', 'the denial reason, from the audit trail');
  assert.equal(await page.locator('.msg.user .text').allTextContents(), ['use tools again']);
  assert.match(await page.locator('.msg.assistant').last().textContent() ?? '', 'ship on Friday');

  // From a new tab: the session is found in the list (by its title too) and opens with its history.
  const other = await h.browser.newPage();
  try {
    await open(other, h);
    const search = other.getByRole('searchbox', { name: 'Search sessions by title' });
    await search.fill('AGAIN');
    await other.waitForFunction(() => document.querySelectorAll('button.session').length === 1);
    await other.locator(`button.session[data-session="${id}"]`).click();
    await other.locator('details.tool').nth(1).waitFor();
    assert.is(await other.locator('.msg.user .text').textContent(), 'use tools again');
    await search.fill('no title has this');
    await other.getByText('No session title matches.').waitFor();
  } finally {
    await other.close();
  }
});

browserTest('Stop ends a slow run; the session keeps a consistent history and takes the next message', async (page, h) => {
  await open(page, h);
  const answered = await send(page, 'be slow');
  const card = page.locator('details.tool[data-tool="wait_a_while"]');
  await card.waitFor();
  assert.is(await card.getAttribute('data-status'), 'running');
  // The status line: the tool running, the time going on, the tokens of the model call that called it.
  const status = page.locator('.status .run-status');
  await page.locator('.status .run-status[data-phase="tool"][data-tool="wait_a_while"]').waitFor();
  await page.waitForFunction(() => /· [1-9]\d* s ·/.test(document.querySelector('.status .run-status')?.textContent ?? ''));
  assert.match(await status.textContent() ?? '', /^Calling tool wait_a_while · \d+ s · 120 in · 18 out tokens$/);
  await page.getByRole('button', { name: 'Stop' }).click();
  await answered();
  assert.is(await page.locator('.status .run-status').count(), 0, 'the status line is gone once the run is over');
  assert.is((await page.locator('.status').textContent())?.trim(), '');
  const notice = page.locator('.notice');
  assert.is(await notice.count(), 1, 'one notice');
  const said = (await notice.textContent()) ?? '';
  assert.is(await notice.locator('strong').textContent(), 'Stopped: you pressed Stop');
  assert.is(said.match(/stop/gi)?.length, 2, `"Stopped: you pressed Stop" and nothing else about stopping: ${said}`);
  assert.not.match(said, /POST|\/api\/|ORYX_E_/, 'no API wording');
  assert.is(await notice.getAttribute('data-code'), 'ORYX_E_WEB_STOPPED', 'the code stays for scripts');
  assert.is(await card.getAttribute('data-status'), 'error', 'the cut call has its error result');

  const stored = await api(h, `/api/sessions/${sessionOf(page)}`);
  const messages = stored.messages.map((m: any) => m.message);
  assert.equal(messages.map((m: any) => m.role), ['user', 'assistant', 'tool']);
  assert.is(messages[1].toolCalls[0].id, 'call_slow');
  assert.is(messages[2].toolCallId, 'call_slow');
  assert.is(messages[2].isError, true);

  await (await send(page, 'after the stop'))();
  assert.match(await page.locator('.msg.assistant').last().textContent() ?? '', 'You said: after the stop');
  assert.is(await page.locator('.notice').count(), 0, 'the stop notice is gone with the next answer');
  const last = h.model.requests.at(-1)!.body.messages as { role: string; tool_call_id?: string }[];
  assert.equal(last.slice(1).map((m) => m.role), ['user', 'assistant', 'tool', 'user'], 'the model sees a call and its result, then the new message');
});

browserTest('a write that needs approval waits in the chat with Approve and Deny; Approve runs it and the run goes on to its answer', async (page, h) => {
  await open(page, h);
  const ended = await send(page, 'write a plan');
  await ended();
  await page.locator('.notice[data-reason="suspended"]').waitFor();
  const card = page.locator('.approval[data-tool="write_file"]');
  await card.waitFor();
  assert.match(await card.textContent() ?? '', /drafts\/plan\.md.*needs approval: it is inside "drafts" on files\.ask\.write/s);
  // A write shows the diff of what it would do (a new file here), not its arguments as JSON.
  assert.equal(await card.locator('.diff .line').allTextContents(), ['--- /dev/null\n', '+++ b/drafts/plan.md\n', '@@ -0,0 +1,1 @@\n', '+# Plan\n']);
  assert.equal(await card.locator('.diff .line.add').allTextContents(), ['+# Plan\n']);
  assert.is(await card.locator('.args').count(), 0, 'no raw JSON');
  assert.is(await page.locator('.tool[data-status="waiting"][data-tool="write_file"]').count(), 1, 'the call shows as waiting, not failed');
  assert.equal((await api(h, `/api/approvals?session=${sessionOf(page)}`)).items.length, 1);
  const before = await runsEnded(page);
  await card.getByRole('button', { name: 'Approve' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('section.chat')?.getAttribute('data-runs-ended')) > n, before);
  await page.locator('.msg.assistant', { hasText: 'The tool said: Wrote' }).waitFor();
  assert.is(await page.locator('.approval').count(), 0, 'nothing waits any more');
  assert.is(await page.locator('.tool[data-status="ok"][data-tool="write_file"]').count(), 1);
  assert.is(await readFile(path.join(h.dir, 'drafts', 'plan.md'), 'utf8'), '# Plan\n');

  // The timeline says who let the call run.
  await page.getByRole('button', { name: 'Timeline' }).click();
  const write = page.locator('.entry.tool-call', { hasText: 'write_file' });
  await write.waitFor();
  assert.is(await write.getAttribute('data-status'), 'ok');
  assert.is(await write.locator('.decided').textContent(), 'approved by operator');
  assert.is(await write.locator('.decided').getAttribute('data-decision'), 'approved');
  assert.is(await page.locator('.entry.tool-call .decided').count(), 1, 'only the call that waited');

  // So does the chat's card, read back.
  await page.reload();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  const read = page.locator('.tool[data-tool="write_file"]');
  await read.waitFor();
  assert.is(await read.locator('.decided').textContent(), 'approved by operator');
  assert.is(await read.locator('.decided').getAttribute('data-decision'), 'approved');
  assert.is(await page.locator('.tool .decided').count(), 1, 'only on the card of the call that waited');
});

browserTest('Deny with a reason: the timeline shows the call denied by the person with their reason, as text', async (page, h) => {
  await open(page, h);
  await (await send(page, 'write a plan'))();
  const card = page.locator('.approval[data-tool="write_file"]');
  await card.waitFor();
  const reason = 'not <img src=x onerror="window.__pwned=\'reason\'"> yet';
  await card.getByRole('textbox', { name: 'Reason (optional)' }).fill(reason);
  const before = await runsEnded(page);
  await card.getByRole('button', { name: 'Deny' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('section.chat')?.getAttribute('data-runs-ended')) > n, before);
  await page.getByRole('button', { name: 'Timeline' }).click();
  const write = page.locator('.entry.tool-call', { hasText: 'write_file' });
  await write.waitFor();
  assert.is(await write.getAttribute('data-status'), 'denied');
  assert.is(await write.locator('.decided').textContent(), `denied by operator: ${reason}`);
  assert.is(await write.getAttribute('title'), `denied by operator: ${reason}`, 'the whole line on hover, the column cuts it');
  assert.is(await page.locator('.timeline img').count(), 0);

  // The chat's card, read back, says who denied it; the reason stays text there too.
  await page.reload();
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  const read = page.locator('.tool[data-tool="write_file"]');
  await read.waitFor();
  assert.is(await read.getAttribute('data-status'), 'denied');
  assert.is(await read.locator('.decided').textContent(), `denied by operator: ${reason}`);
  assert.is(await read.locator('.decided').getAttribute('data-decision'), 'denied');
  assert.is(await read.locator('summary').textContent(), `deniedwrite_file${await read.locator('.duration').textContent()}denied by operator: ${reason}`, 'said once');
  assert.is(await page.locator('.chat img').count(), 0);
  assert.is(await page.evaluate(() => window.__pwned), undefined, 'the reason ran nothing');
});

browserTest('an approval the CLI left pending (oryx run --approval wait) shows up: a badge on its session, its diff, Approve there finishes the run', async (page, h) => {
  await writeFile(path.join(h.dir, 'drafts', 'cli-notes.md'), 'one\ntwo\nthree\n');
  // The page is open before the CLI's run pauses: the badge comes by polling, with no reload.
  await open(page, h);
  // --stream: the scripted model server answers streamed requests (and --json would not stream).
  const cli = await runOryx(['run', '--stream', '--approval', 'wait', 'revise the notes'], { cwd: h.dir, env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ORYX_WEB_TOKEN: '' } });
  assert.is(cli.code, 4, `oryx run waits for the approval (exit 4): ${cli.stderr}${cli.stdout}`);
  const waiting = (await api(h, '/api/approvals?status=pending')).items.filter((a: any) => a.args.path === 'drafts/cli-notes.md');
  assert.is(waiting.length, 1);
  const paused = { sessionId: waiting[0].sessionId as string, approval: { id: waiting[0].id as string } };
  assert.match(cli.stderr, paused.approval.id.slice(0, 8), 'the CLI named the approval it left');
  const entry = page.locator(`button.session[data-session="${paused.sessionId}"]`);
  await entry.waitFor();
  await entry.locator('.badge').waitFor();
  assert.is(await entry.locator('.badge').textContent(), '1 waiting');
  assert.is(await entry.getAttribute('data-pending'), '1');
  assert.is(await page.locator('button.session .badge').count(), 1, 'only the session that waits has a badge');

  await entry.click();
  const card = page.locator(`.approval[data-approval="${paused.approval.id}"]`);
  await card.waitFor();
  assert.match(await card.textContent() ?? '', /write_file needs your approval.*drafts\/cli-notes\.md.*files\.ask\.write/s);
  assert.is(await page.locator('.tool[data-status="waiting"][data-tool="write_file"]').count(), 1);
  assert.equal(await card.locator('.diff .line.del').allTextContents(), ['-two\n']);
  assert.equal(await card.locator('.diff .line.add').allTextContents(), ['+TWO\n']);
  assert.match(await card.locator('.diff').textContent() ?? '', /^--- a\/drafts\/cli-notes\.md\n\+\+\+ b\/drafts\/cli-notes\.md\n@@ -1,3 \+1,3 @@\n one\n-two\n\+TWO\n three\n$/);

  const before = await runsEnded(page);
  await card.getByRole('button', { name: 'Approve' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('section.chat')?.getAttribute('data-runs-ended')) > n, before);
  await page.locator('.msg.assistant', { hasText: 'The tool said: Wrote' }).waitFor();
  assert.is(await readFile(path.join(h.dir, 'drafts', 'cli-notes.md'), 'utf8'), 'one\nTWO\nthree\n', 'the CLI run went on from the console');
  assert.is(await page.locator('.approval').count(), 0);
  await page.waitForFunction((id) => !document.querySelector(`button.session[data-session="${id}"] .badge`), paused.sessionId);
  const decided = await api(h, `/api/approvals/${paused.approval.id}`);
  assert.is(decided.decidedBy, 'operator');
});

browserTest('model output with script, event handlers, frames and javascript: links runs nothing, live or read back', async (page, h) => {
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const res = await page.goto(`${h.url}/#token=${h.token}`);
  assert.match((await res!.allHeaders())['content-security-policy'] ?? '', "default-src 'self'");
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await (await send(page, 'inject'))();
  const check = async () => {
    const md = page.locator('.msg.assistant .md').last();
    await md.locator('strong').waitFor();
    assert.is(await md.locator('strong').textContent(), 'still bold');
    assert.is(await md.locator('img, script, svg, iframe, [onerror], [onload], [srcdoc]').count(), 0);
    assert.match(await md.textContent() ?? '', '<img src=x onerror=', 'markup in the text is shown as text');
    const hrefs = await md.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(hrefs.every((href) => href === null || href.startsWith('https:')), String(hrefs));
    // The links that were javascript: are inert now: clicking them runs nothing (the https one is not followed here).
    for (const link of await md.locator('a:not([href])').all()) await link.click();
    assert.is(await page.evaluate(() => window.__pwned), undefined, 'no payload ran');
  };
  await check();
  await page.reload();
  await page.locator('.msg.assistant').last().waitFor();
  await check();
  assert.not.ok(requested.some((u) => u.includes('example.invalid')), 'the image was not fetched');
});

browserTest('a run that stops at its limit or fails says how, with its code and hint', async (page, h) => {
  await open(page, h);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption('tight');
  await (await send(page, 'loop once more'))();
  const limit = page.locator('.notice[data-reason="limit"]');
  assert.is(await limit.locator('strong').textContent(), 'Stopped: the step limit (1) was reached');
  assert.match(await limit.textContent() ?? '', /\(1 model call\).*settings\.max_iterations/);
  assert.is(await page.locator('.notice').count(), 1, 'said once');

  await page.getByRole('combobox', { name: 'Agent' }).selectOption('assistant');
  await (await send(page, 'fail please'))();
  const failed = page.locator('.notice[data-reason="error"]');
  assert.match(await failed.textContent() ?? '', /The run failed.*ORYX_E_LLM_BAD_REQUEST.*scripted failure/);
  assert.match(await failed.locator('.hint').textContent() ?? '', 'Read the server message above');
});

browserTest('every control is named, Shift+Enter makes a new line, and a phone-width dark window works', async (page, h) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 390, height: 760 });
  await open(page, h);
  const unnamed = await page.evaluate(() => [...document.querySelectorAll('button, input, select, textarea, a')].filter((el) => {
    const labels = el.labels;
    const name = el.getAttribute('aria-label') || (labels && labels.length ? labels[0]!.textContent : '') || el.textContent;
    return !name?.trim();
  }).map((el) => el.outerHTML.slice(0, 80)));
  assert.equal(unnamed, []);
  assert.is(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(17, 20, 23)', 'the dark scheme');
  const sidebar = page.getByRole('complementary', { name: 'Sessions' });
  assert.not.ok(await sidebar.isVisible(), 'sessions are folded away on a narrow window');
  await page.getByRole('button', { name: 'Sessions' }).click();
  assert.ok(await sidebar.isVisible());
  assert.is(await page.getByRole('button', { name: 'Sessions' }).getAttribute('aria-expanded'), 'true');
  await page.getByRole('button', { name: 'New chat' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.focus();
  await page.keyboard.type('first line');
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('second line');
  assert.is(await box.inputValue(), 'first line\nsecond line', 'Shift+Enter adds a line, sends nothing');
  assert.is(await runsEnded(page), 0);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('section.chat')?.getAttribute('data-runs-ended') === '1');
  assert.is(await page.locator('.msg.user .text').last().textContent(), 'first line\nsecond line');
  const scrolls = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  assert.not.ok(scrolls, 'nothing wider than the window');
  await page.getByRole('button', { name: 'Sessions' }).click();
  await page.getByRole('button', { name: 'Memory' }).click(); // the views stay in reach with the sessions open
  assert.not.ok(await sidebar.isVisible(), 'picking a view folds the sessions away');
  await page.getByRole('heading', { name: 'Memory of assistant' }).waitFor();
  await page.getByText('Nothing here yet.').first().waitFor();
});

test.run();
