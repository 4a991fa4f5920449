// A real browser for tests: Debian's Chromium driven by playwright-core (never a browser
// download). Tests that use it fail, loudly, when Chromium is missing: they never skip.
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

/** Where Chromium is: ORYX_CHROMIUM, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return process.env.ORYX_CHROMIUM || '/usr/bin/chromium';
}

/** A headless Chromium with a fresh profile; `close()` also deletes the profile. */
export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Flags for a quiet, reproducible headless run in a container (no sandbox, no GPU, no network chatter). */
const FLAGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Launches Chromium headless with a fresh `--user-data-dir`. `args` adds flags, such as
 * `--host-resolver-rules=MAP evil.test 127.0.0.1` to point a name at loopback.
 * Throws, naming the fix, when Chromium is not installed.
 *
 * @example
 * const browser = await launchBrowser();
 * try { const page = await browser.newPage(); await page.goto(url); } finally { await browser.close(); }
 */
export async function launchBrowser(options: { args?: string[] } = {}): Promise<TestBrowser> {
  const executablePath = chromiumPath();
  try {
    await access(executablePath, constants.X_OK);
  } catch {
    throw new Error(`Chromium not found at ${executablePath}: install Debian's chromium (\`apt-get install -y chromium\`, as .ci/run does) or set ORYX_CHROMIUM to its path. Browser tests do not skip.`);
  }
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(path.join(tmpdir(), 'oryx-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: [...FLAGS, ...(options.args ?? [])] });
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      try { await context.close(); } finally { await rm(profile, { recursive: true, force: true }); }
    },
  };
}
