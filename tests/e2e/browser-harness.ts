/**
 * A real headless Chromium for the studio's browser tests: Debian's `chromium` package (installed
 * here when missing — never a browser download) driven by playwright-core. Each test gets a page
 * signed in to a daemon, a list of any request that left the daemon's origin, and a screenshot in
 * its own temp dir when it fails.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'bun:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type Daemon, startDaemon } from './daemon-harness.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Playwright's waits: generous, the machine is shared. */
const ACTION_TIMEOUT_MS = 60_000;

/** Installs Debian's chromium when it is missing (as .ci/run does); fails loudly if it cannot. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const command of [['apt-get', 'update'], ['apt-get', 'install', '-y', 'chromium']]) {
    const result = Bun.spawnSync(command, { env, stdout: 'inherit', stderr: 'inherit' });
    if (result.exitCode !== 0) throw new Error(`'${command.join(' ')}' failed (exit ${result.exitCode}); the studio's browser tests need Debian's chromium at ${CHROMIUM}`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * One Chromium and one daemon for a whole test file (installing Chromium first when missing, which
 * can take minutes); `open(options)` makes the opener `withStudio` takes.
 */
export function browserWithDaemon(bundlePath: string, options: Parameters<typeof startDaemon>[1] = {}) {
  let browser: Browser | undefined;
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    ensureChromium();
    browser = await launchChromium();
    daemon = await startDaemon(bundlePath, options);
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await daemon?.stop();
    daemon?.cleanup();
  }, 60_000);
  const started = () => {
    if (!browser || !daemon) throw new Error('the browser and the daemon have not started');
    return { browser, daemon };
  };
  return {
    daemon: () => started().daemon,
    open: (pageOptions: Parameters<typeof openStudio>[2] = {}) => () => openStudio(started().browser, started().daemon, pageOptions),
  };
}

export interface StudioPage {
  page: Page;
  context: BrowserContext;
  /** Requests to anything but the daemon's origin (the studio must make none). */
  foreignRequests: string[];
  pageErrors: string[];
  /** The browser console's errors: a Content-Security-Policy violation shows here. */
  consoleErrors: string[];
}

/** A fresh browser context (no cookies) on the studio: at `url`, else signed in with a fresh login code unless `signedIn: false`. */
export async function openStudio(
  browser: Browser,
  daemon: Daemon,
  options: { signedIn?: boolean; url?: string; hash?: string; viewport?: { width: number; height: number } } = {},
): Promise<StudioPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 800 } });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const page = await context.newPage();
  const origin = new URL(daemon.url).origin;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) foreignRequests.push(url);
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  let url = options.url ?? `${daemon.url}/studio`;
  if (options.url === undefined && options.signedIn !== false) {
    const response = await daemon.api('/v1/studio/login-codes', { method: 'POST' });
    const body = (await response.json()) as { path: string };
    url = `${daemon.url}${body.path}`;
  }
  await page.goto(url);
  // The test's tsconfig has no DOM types: the page-side code is a string.
  if (options.hash) await page.evaluate(`location.hash = ${JSON.stringify(options.hash)}`);
  return { page, context, foreignRequests, pageErrors, consoleErrors };
}

/** Runs a test body with a page; on failure saves a screenshot in a temp dir and names it in the error. */
export async function withStudio(name: string, open: () => Promise<StudioPage>, body: (studio: StudioPage) => Promise<void>): Promise<void> {
  const studio = await open();
  try {
    await body(studio);
  } catch (error) {
    const dir = mkdtempSync(join(tmpdir(), 'goondan-studio-test-'));
    const file = join(dir, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await studio.page.screenshot({ path: file, fullPage: true }).catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n(screenshot of the page: ${file}; page errors: ${JSON.stringify(studio.pageErrors)})`);
  } finally {
    await studio.context.close();
  }
}

/** Polls a value read from the page until it satisfies `ok`; the error says what was last seen. */
export async function waitForValue<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = ACTION_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await Bun.sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

/** With GOONDAN_UPDATE_SCREENSHOTS=1 the tests refresh the README's screenshots under docs/studio/. */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.GOONDAN_UPDATE_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: join(import.meta.dir, '../../docs/studio', `${name}.png`) });
}
