/**
 * The agent process entry as one bundled file (`bun build --target=bun --bytecode`): a cold agent
 * start loads one file instead of ~150 modules, an idle agent holds less code, and no function of
 * it is compiled on its first call (measured: cold spawn → started 52 -> 35 ms). Built by the first
 * daemon that finds it missing or stale, before its agents start, and cached under
 * BUILD_CACHE_DIR (never committed) with a fingerprint of its sources in the file name. If the
 * build fails, agents run from the sources — same code, only slower to start.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BunPlugin } from 'bun';
import { BUILD_CACHE_DIR, PACKAGE_ROOT } from '../../shared/package-root.ts';
import { BYTECODE_SUFFIX, writeBytecodeBuild } from './bytecode-build.ts';
import { sourceFingerprint } from './source-fingerprint.ts';

export const AGENT_SOURCE_ENTRY = join(PACKAGE_ROOT, 'agent-process', 'main.ts');
const BUNDLE_DIR = join(BUILD_CACHE_DIR, 'agent');
/** What the bundle is made of: a change to any of these makes it stale. */
const SOURCE_DIRS = ['agent-process', 'shared'];
const SOURCE_FILES = ['package-lock.json', 'package.json', 'bundles/base/cached-ajv.ts'];
/** Bump when the build settings change. */
const BUILD_VERSION = 3;

/** Loaded at run time from node_modules, only by agents that need them (providers, ajv's compiler). */
const EXTERNAL = ['@ai-sdk/*', 'ai', 'zod', 'ajv', 'ajv-formats', 'pino', '@opentelemetry/*'];

/** The bundle's path for the sources as they are now. */
export function agentBundlePath(): string {
  return join(BUNDLE_DIR, `agent-${agentSourceFingerprint()}.js`);
}

/** The fresh bundle, if one has been built for the current sources. */
export function freshAgentBundle(): string | undefined {
  const path = agentBundlePath();
  try {
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the bundle for the current sources (atomically; stale ones are removed). */
export async function buildAgentBundle(): Promise<string> {
  const path = agentBundlePath();
  const result = await Bun.build({
    entrypoints: [AGENT_SOURCE_ENTRY],
    target: 'bun',
    // Bytecode needs CommonJS outside `--compile`. Every function's bytecode is then loaded, not
    // compiled on its first call (40-400 µs each): a new instance's start path calls dozens.
    format: 'cjs',
    bytecode: true,
    // Whitespace and syntax only: function names stay readable in stack traces.
    minify: { whitespace: true, syntax: true, identifiers: false },
    external: EXTERNAL,
    define: { GOONDAN_BUNDLED_PACKAGE_ROOT: JSON.stringify(PACKAGE_ROOT) },
    plugins: [nanoidWebCrypto],
  });
  const code = result.outputs.find((output) => output.kind === 'entry-point');
  const bytecode = result.outputs.find((output) => output.kind === 'bytecode');
  if (!result.success || !code) throw new Error(`agent bundle build failed: ${result.logs.map((log) => log.message).join('; ')}`);
  mkdirSync(BUNDLE_DIR, { recursive: true });
  await writeBytecodeBuild(path, code, bytecode);
  removeStaleBundles(path);
  return path;
}

/** Older builds go once no daemon started in the last hour can still be spawning agents from them. */
const STALE_BUNDLE_MS = 60 * 60 * 1000;

function removeStaleBundles(keep: string): void {
  for (const name of readdirSync(BUNDLE_DIR)) {
    const other = join(BUNDLE_DIR, name);
    if (other === keep || other === `${keep}${BYTECODE_SUFFIX}` || !(name.endsWith('.js') || name.endsWith(BYTECODE_SUFFIX))) continue;
    try {
      if (Date.now() - statSync(other).mtimeMs > STALE_BUNDLE_MS) rmSync(other, { force: true });
    } catch {
      // Removed meanwhile by another daemon.
    }
  }
}

/**
 * nanoid's Node build imports node:crypto, which costs ~5 MB of RSS in every Bun process; its
 * Web Crypto build produces the same ids from the global `crypto`.
 */
const nanoidWebCrypto: BunPlugin = {
  name: 'nanoid-web-crypto',
  setup(build) {
    build.onResolve({ filter: /^nanoid$/ }, () => ({ path: join(PACKAGE_ROOT, 'node_modules', 'nanoid', 'index.browser.js') }));
  },
};

function agentSourceFingerprint(): string {
  return sourceFingerprint({
    dirs: SOURCE_DIRS.map((dir) => join(PACKAGE_ROOT, dir)),
    files: SOURCE_FILES.map((file) => join(PACKAGE_ROOT, file)),
    settings: [String(BUILD_VERSION), PACKAGE_ROOT],
  });
}

let current: string | undefined;

/** The entry agent processes start from: the fresh bundle when there is one, else the sources. */
export function agentEntry(): string {
  // A build removed under a long-running daemon (a newer daemon cleaned up) falls back to the sources.
  if (current !== undefined && !existsSync(current)) current = undefined;
  return current ?? AGENT_SOURCE_ENTRY;
}

/**
 * Uses the fresh bundle, or builds it (~40 ms; on failure agents start from the sources, logged).
 * GOONDAN_AGENT_BUNDLE=0 keeps agents on the sources.
 */
export async function prepareAgentEntry(env: Record<string, string | undefined>, log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }): Promise<void> {
  current = undefined;
  if (env.GOONDAN_AGENT_BUNDLE === '0') return;
  current = freshAgentBundle();
  if (current) return;
  const started = performance.now();
  try {
    current = await buildAgentBundle();
    log.info({ path: current, buildMs: Math.round(performance.now() - started) }, 'agent entry bundled');
  } catch (error) {
    log.warn({ err: error }, 'cannot bundle the agent entry; agents start from the sources');
  }
}
