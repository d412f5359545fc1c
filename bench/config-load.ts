#!/usr/bin/env bun
/**
 * Bench: load + validate a generated 200-resource bundle (plus the built-in package) with
 * loadBundle, repeated. Its 85 entry modules are real: validate parses them and checks their
 * exports; that step is also timed on its own, interleaved with the loads, to show its share.
 * Prints a table and one JSON line. Not a test: figures only.
 *   bun bench/config-load.ts [runs]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBundle } from '../shared/config/index.ts';
import { initializerStart, isSyntaxError, lookupExport, parseModule } from '../shared/config/entry-module.ts';
import { objectLiteralKeys } from '../shared/config/object-literal-keys.ts';
import { fullOrSmoke } from './smoke.ts';

const RUNS = Number(process.argv[2] ?? fullOrSmoke(30, 1));
const WARMUP = fullOrSmoke(3, 1);

// Smoke: one of each kind, and the four agents a swarm takes.
const COUNTS = fullOrSmoke(
  { models: 10, tools: 60, extensions: 20, connectors: 5, agents: 80, swarms: 20, connections: 4 },
  { models: 1, tools: 1, extensions: 1, connectors: 1, agents: 4, swarms: 1, connections: 1 },
);

function doc(kind: string, name: string, spec: string): string {
  return `apiVersion: goondan.ai/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  labels: { bench: "yes" }\nspec:\n${spec}`;
}

/** Writes the bundle; returns its directory and resource count. */
function generateBundle(): { dir: string; resources: number; modules: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-bench-config-'));
  const modules: string[] = [];
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    if (path.endsWith('.ts')) modules.push(join(dir, path));
  };
  const docs: Record<string, string[]> = { 'goondan.yaml': [doc('Package', 'bench', '  version: "1.0.0"\n')] };
  const add = (file: string, text: string) => (docs[file] ??= []).push(text);

  for (let i = 0; i < COUNTS.models; i++) add('models.yaml', doc('Model', `model-${i}`, `  provider: mock\n  model: m${i}\n  capabilities: { toolCalling: true }\n`));
  for (let i = 0; i < COUNTS.tools; i++) {
    // Real handlers: validate reads every entry module (parse + exports + handler keys).
    write(`tools/tool-${i}/index.ts`, "import type { ToolHandler } from '../../types.ts';\n\nexport const handlers: Record<string, ToolHandler> = {\n  read: async (ctx, input) => ({ path: String(input.path) }),\n  write: async (ctx, input) => ({ written: String(input.path) }),\n};\n");
    const exports = ['read', 'write']
      .map((e) => `    - name: ${e}\n      description: ${e} things.\n      parameters:\n        type: object\n        additionalProperties: false\n        properties:\n          path: { type: string, description: Path. }\n          limit: { type: integer, minimum: 1 }\n        required: [path]\n`)
      .join('');
    add('tools.yaml', doc('Tool', `tool-${i}`, `  entry: ./tools/tool-${i}/index.ts\n  errorMessageLimit: 1200\n  exports:\n${exports}`));
  }
  for (let i = 0; i < COUNTS.extensions; i++) {
    write(`extensions/ext-${i}/index.ts`, 'export function register() {}\n');
    add('extensions.yaml', doc('Extension', `ext-${i}`, `  entry: ./extensions/ext-${i}/index.ts\n  config: { level: ${i} }\n`));
  }
  for (let i = 0; i < COUNTS.connectors; i++) {
    write(`connectors/conn-${i}/index.ts`, 'export default async () => {};\n');
    add('connectors.yaml', doc('Connector', `connector-${i}`, `  entry: ./connectors/conn-${i}/index.ts\n  events:\n    - name: message\n      properties: { user: { type: string } }\n`));
  }
  write('prompts/agent.md', 'You are a benchmark agent.\n');
  for (let i = 0; i < COUNTS.agents; i++) {
    const tools = [0, 1, 2].map((k) => `    - ref: Tool/tool-${(i + k * 7) % COUNTS.tools}\n`).join('');
    const prompt = i % 2 === 0 ? '    systemRef: ./prompts/agent.md\n' : '    system: You are a benchmark agent.\n';
    add(
      'agents.yaml',
      doc('Agent', `agent-${i}`, `  modelConfig:\n    modelRef: Model/model-${i % COUNTS.models}\n  prompt:\n${prompt}  tools:\n${tools}    - { kind: Tool, name: bash, package: "@goondan/base" }\n  extensions:\n    - ref: Extension/ext-${i % COUNTS.extensions}\n      config: { level: 9 }\n`),
    );
  }
  for (let i = 0; i < COUNTS.swarms; i++) {
    const members = [0, 1, 2, 3].map((k) => `Agent/agent-${i * 4 + k}`);
    add('swarms.yaml', doc('Swarm', `swarm-${i}`, `  entryAgent: ${members[0]}\n  agents: [${members.join(', ')}]\n  policy: { maxStepsPerTurn: 16 }\n`));
  }
  for (let i = 0; i < COUNTS.connections; i++) {
    add('connections.yaml', doc('Connection', `connection-${i}`, `  connectorRef: Connector/connector-${i}\n  swarmRef: Swarm/swarm-${i}\n  secrets:\n    token: { valueFrom: { env: BENCH_TOKEN_${i} } }\n  ingress:\n    rules:\n      - route: { instanceKeyProperty: user }\n`));
  }
  let resources = 0;
  for (const [file, list] of Object.entries(docs)) {
    resources += list.length;
    write(file, list.join('---\n'));
  }
  return { dir, resources, modules };
}

/** What validate does per entry module (check-entry-modules.ts), without the problem reporting. */
function readEntryModules(files: readonly string[]): void {
  for (const file of files) {
    const module = parseModule(file);
    if (module === undefined || isSyntaxError(module)) throw new Error(`bench module ${file} does not parse`);
    const found = lookupExport(module, file.includes('/tools/') ? 'handlers' : 'register');
    if (found.kind === 'found') {
      const start = initializerStart(found.module, found.localName);
      if (start !== undefined) objectLiteralKeys(found.module.js, start);
    }
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const { dir, resources, modules } = generateBundle();
try {
  const env = { BENCH_TOKEN_0: 't' };
  const coldStart = performance.now();
  const first = await loadBundle(dir, { env });
  const coldMs = performance.now() - coldStart;
  if (first.errors.length > 0) throw new Error(`generated bundle is invalid: ${first.errors[0]?.code} ${first.errors[0]?.message}`);
  for (let i = 0; i < WARMUP; i++) await loadBundle(dir, { env });
  const times: number[] = [];
  const moduleTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await loadBundle(dir, { env });
    times.push(performance.now() - start);
    const moduleStart = performance.now();
    readEntryModules(modules);
    moduleTimes.push(performance.now() - moduleStart);
  }
  times.sort((a, b) => a - b);
  moduleTimes.sort((a, b) => a - b);
  const result = {
    bench: 'config-load',
    resources,
    totalResources: first.resources.length,
    files: first.files.length,
    runs: RUNS,
    coldMs: Number(coldMs.toFixed(2)),
    medianMs: Number(percentile(times, 50).toFixed(2)),
    p95Ms: Number(percentile(times, 95).toFixed(2)),
    minMs: Number((times[0] ?? Number.NaN).toFixed(2)),
    entryModules: modules.length,
    moduleCheckMedianMs: Number(percentile(moduleTimes, 50).toFixed(2)),
    moduleCheckShare: Number((percentile(moduleTimes, 50) / percentile(times, 50)).toFixed(3)),
    warnings: first.warnings.length,
  };
  const rows: Array<[string, string]> = [
    ['bundle resources (generated)', String(result.resources)],
    ['resources incl. @goondan/base', String(result.totalResources)],
    ['YAML files', String(result.files)],
    ['runs', String(result.runs)],
    ['cold (first load, compiles schemas)', `${result.coldMs} ms`],
    ['median', `${result.medianMs} ms`],
    ['p95', `${result.p95Ms} ms`],
    ['min', `${result.minMs} ms`],
    [`entry modules checked (${result.entryModules}), median`, `${result.moduleCheckMedianMs} ms (${(result.moduleCheckShare * 100).toFixed(1)} % of the load)`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log('loadBundle: load + validate a generated bundle');
  for (const [key, value] of rows) console.log(`  ${key.padEnd(width)}  ${value}`);
  console.log(JSON.stringify(result));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
