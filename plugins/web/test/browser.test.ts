// In a real browser (Chromium through ./browser.ts): a page served from another loopback port
// tries what any site the user visits could try against `oryx web`, and achieves nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchBrowser, type TestBrowser } from './browser.ts';
import { startWeb, type Harness } from './helpers.ts';

/** The attacker's page: two no-cors fetches and a form post, all "simple" requests a page may send anywhere. */
const attackPage = (target: string) => `<!doctype html><html><head><title>loading</title></head><body>
<iframe name="sink"></iframe>
<form id="f" method="post" action="${target}/api/sessions" enctype="text/plain" target="sink"><input name='{"agent":"assistant","x":"' value='"}'></form>
<script>
(async () => {
  const chat = JSON.stringify({ model: 'assistant', messages: [{ role: 'user', content: 'write the file' }] });
  const results = [];
  for (const [path, body] of [['/v1/chat/completions', chat], ['/api/sessions', '{"agent":"assistant"}']]) {
    try {
      const res = await fetch(${JSON.stringify(target)} + path, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
      results.push(res.type);
    } catch (error) {
      results.push('failed: ' + error.message);
    }
  }
  document.getElementById('f').submit();
  document.title = 'sent ' + results.join(' ');
})();
</script></body></html>`;

async function servePage(html: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(html); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Waits (10 s at most) until the server has logged `count` lines matching `pattern`. */
async function logged(h: Harness, pattern: RegExp, count: number): Promise<string[]> {
  for (let i = 0; i < 500; i++) {
    const lines = h.logs.filter((l) => pattern.test(l));
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the server never logged ${count} × ${pattern}:\n${h.logs.join('\n')}`);
}

// One browser for the suite, launched by the first test rather than in a hook, so a missing
// Chromium fails each test with its message (uvu does not print errors thrown by hooks).
let launched: Promise<TestBrowser> | undefined;
const newPage = async () => (await (launched ??= launchBrowser({ args: ['--host-resolver-rules=MAP rebind.test 127.0.0.1', '--disable-features=HttpsUpgrades'] }))).newPage();
test.after(async () => { await (await launched?.catch(() => undefined))?.close(); });

test('a page from another loopback port: its no-cors and form POSTs reach the server and are refused; no session, no model call', async () => {
  // With the default token, and with auth: 'none', where the Origin check alone must hold.
  for (const web of [{}, { auth: 'none' as const }]) {
    const page = await newPage();
    const h = await startWeb({ web, script: [{ text: 'should never be said' }] });
    const evil = await servePage(attackPage(h.url));
    try {
      await page.goto(evil.url);
      await page.waitForFunction("document.title.startsWith('sent')");
      // Both fetches fail in the page: Cross-Origin-Resource-Policy keeps even the opaque answer from it.
      assert.match(await page.title(), /^sent failed: .+ failed: /);
      const refused = await logged(h, / POST \/(v1\/chat\/completions|api\/sessions) \d{3} /, 3);
      for (const line of refused) assert.match(line, / 403 /, `${JSON.stringify(web)}: ${line}`);
      assert.is(h.llm.requests.length, 0, 'no model call');
      assert.is((await h.kernel.service('sessions').list()).items.length, 0, 'no session');
    } finally {
      await page.close();
      evil.server.close();
      await h.close();
    }
  }
});

test('DNS rebinding: the browser reaches the server under a foreign name and gets 421', async () => {
  const page = await newPage();
  const h = await startWeb();
  try {
    const port = new URL(h.url).port;
    const rebound = await page.goto(`http://rebind.test:${port}/health`);
    assert.is(rebound?.status(), 421);
    assert.match(await page.textContent('body') ?? '', 'ORYX_E_WEB_BAD_HOST');
    assert.is((await page.goto(`http://127.0.0.1:${port}/health`))?.status(), 200, 'the same server under its own address');
  } finally {
    await page.close();
    await h.close();
  }
});

test('/docs renders under its Content-Security-Policy: its style applies, nothing is refused', async () => {
  const page = await newPage();
  const h = await startWeb();
  try {
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setExtraHTTPHeaders(h.auth);
    const res = await page.goto(`${h.url}/docs`);
    assert.is(res?.status(), 200);
    assert.match((await res!.allHeaders())['content-security-policy'] ?? '', "style-src 'sha256-");
    assert.is(await page.evaluate('getComputedStyle(document.body).maxWidth'), '960px', 'the inline style is applied');
    assert.ok((await page.locator('section').count()) >= 14, 'every endpoint is listed');
    assert.equal(errors, [], 'no CSP violation');
  } finally {
    await page.close();
    await h.close();
  }
});

test.run();
