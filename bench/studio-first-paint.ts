#!/usr/bin/env bun
/**
 * Bench: the studio's weight and how fast it paints, in Debian's headless Chromium on loopback.
 *   first paint        /studio from the daemon, signed in (median)   vs a one-line HTML page from Bun.serve   target < 200 ms
 *   view ready         until the Swarm view has drawn its data (sign-in, /v1/swarm, /v1/processes)             (absolute)
 *   page weight        index.html (stylesheet inline) + studio.js as served (raw, and gzip for reference)
 * The daemon (`goondan run bundles/demo`) and the floor's server each run in their own process, as
 * a user's daemon does. Prints a table and one JSON line. Not a test: figures only.
 *   bun bench/studio-first-paint.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { readApiToken } from '../orchestrator/http/api-credential.ts';
import { STUDIO_DIST } from '../orchestrator/studio/studio-routes.ts';
import { fullOrSmoke } from './smoke.ts';
import { median } from './stats.ts';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = fullOrSmoke(15, 1);
const BUNDLE = join(import.meta.dir, '../bundles/demo');
const GOONDAN_BIN = join(import.meta.dir, '../bin/goondan');

if (!existsSync(CHROMIUM)) {
  console.error(`bench needs Debian's chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  process.exit(1);
}

/** One navigation in a fresh context: the page's first-contentful-paint and, if asked, when `readySelector` showed. */
async function visit(browser: Browser, url: string, readySelector?: string): Promise<{ paint: number; ready: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    let ready = 0;
    if (readySelector) {
      await page.waitForSelector(readySelector);
      ready = Number(await page.evaluate('performance.now()'));
    }
    await page.waitForFunction(`performance.getEntriesByName('first-contentful-paint').length > 0`);
    return { paint: Number(await page.evaluate(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime`)), ready };
  } finally {
    await context.close();
  }
}

/** Starts a process and resolves with group 1 of the first match of `pattern` in its stdout. */
async function startProcess(command: string[], pattern: RegExp): Promise<{ proc: ReturnType<typeof Bun.spawn>; found: string }> {
  const proc = Bun.spawn(command, { stdout: 'pipe', stderr: 'ignore', env: { ...process.env, GOONDAN_LOG_LEVEL: 'info' } });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${command.join(' ')} exited before printing ${pattern}`);
    buffer += decoder.decode(value, { stream: true });
    const match = pattern.exec(buffer);
    if (!match) continue;
    // Keep draining its output so the process never blocks on a full pipe.
    void (async () => {
      while (!(await reader.read()).done);
    })();
    return { proc, found: match[1] ?? '' };
  }
}

const stateRoot = mkdtempSync(join(tmpdir(), 'goondan-bench-studio-'));
const daemon = await startProcess([GOONDAN_BIN, 'run', BUNDLE, '--port', '0', '--state-root', stateRoot], /"api":"(http:[^"]+)"/);
const apiUrl = daemon.found;
const floorServer = await startProcess(
  [process.execPath, '-e', `const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('<!doctype html><title>floor</title><p>hello</p>', { headers: { 'content-type': 'text/html' } }) }); console.log('port ' + s.port);`],
  /port (\d+)/,
);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
try {
  const headers = { authorization: `Bearer ${readApiToken(stateRoot) ?? ''}`, 'content-type': 'application/json' };
  // Some traffic so the Swarm view has a call to draw.
  await fetch(`${apiUrl}/v1/events`, { method: 'POST', headers, body: JSON.stringify({ input: 'Please write a haiku about autumn and have it reviewed.' }) });
  const loginLink = async () => {
    const response = await fetch(`${apiUrl}/v1/studio/login-codes`, { method: 'POST', headers });
    return `${apiUrl}${((await response.json()) as { path: string }).path}`;
  };
  // Interleaved, so that the shared machine's load drifts over both alike; the first round warms the browser.
  const floor = { paint: [] as number[] };
  const studio = { paint: [] as number[], ready: [] as number[] };
  for (let i = 0; i <= RUNS; i++) {
    const bare = await visit(browser, `http://127.0.0.1:${floorServer.found}/`);
    const page = await visit(browser, await loginLink(), '.graph-svg');
    if (i === 0) continue;
    floor.paint.push(bare.paint);
    studio.paint.push(page.paint);
    studio.ready.push(page.ready);
  }
  const files = ['index.html', 'studio.js'].map((f) => readFileSync(join(STUDIO_DIST, f)));
  const weight = files.reduce((n, b) => n + b.length, 0);
  const gzipped = files.reduce((n, b) => n + Bun.gzipSync(b).length, 0);
  const paint = median(studio.paint);
  const floorPaint = median(floor.paint);
  const ready = median(studio.ready);
  const rows = [
    ['first paint (FCP, median)', `${paint.toFixed(1)} ms`, `${floorPaint.toFixed(1)} ms one-line page`, `${(paint / floorPaint).toFixed(2)}×`, '< 200 ms'],
    ['Swarm view drawn (median)', `${ready.toFixed(1)} ms`, '', '', '-'],
    ['page weight (html+css, js)', `${weight} B`, `${gzipped} B gzip`, '', '-'],
  ];
  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length), ['measure', 'studio', 'floor', 'ratio', 'target'][i]?.length ?? 0));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(['measure', 'studio', 'floor', 'ratio', 'target']));
  for (const row of rows) console.log(line(row));
  console.log(JSON.stringify({ bench: 'studio-first-paint', firstPaintMs: paint, floorFirstPaintMs: floorPaint, paintRatio: paint / floorPaint, swarmViewReadyMs: ready, pageWeightBytes: weight, pageWeightGzipBytes: gzipped, runs: RUNS }));
} finally {
  await browser.close();
  floorServer.proc.kill();
  daemon.proc.kill('SIGTERM');
  await Promise.all([daemon.proc.exited, floorServer.proc.exited]);
  rmSync(stateRoot, { recursive: true, force: true });
}
