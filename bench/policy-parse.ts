#!/usr/bin/env bun
/**
 * Bench: what judging a shell command line costs the tool-policy extension. The one-off load of
 * the bash parser (web-tree-sitter + tree-sitter-bash wasm), then per call p50/p99 of: a bare
 * tree-sitter parse, the full policy evaluation (parse, walk, rules), and as the floor the regex
 * split the policy used before (split on ; && || | & and match each piece).
 * Prints a table and one JSON line. Not a test: figures only.
 *   bun bench/policy-parse.ts [calls per line]
 */
import { loadavg } from 'node:os';
import type { Policy } from '../bundles/base/extensions/tool-policy/policy-rules.ts';
import { fullOrSmoke } from './smoke.ts';
import { percentile } from './stats.ts';

const CALLS = Number(process.argv[2] ?? fullOrSmoke(2000, 1));
const WARMUP = fullOrSmoke(300, 1);
const LINES = [
  'git status',
  'git log --oneline | head -5',
  'ls -la && git diff',
  'npm test 2>&1 | tail -20',
  `sh -c 'cd build && rm -rf ./*'`,
  `find . -name '*.o' -print0 | xargs -0 rm -f`,
  'x=rm; $x -rf ~',
  'git log --format="%H %s" -n 3 > log.txt && cat log.txt',
];
const POLICY: Policy = {
  default: 'ask',
  rules: [
    { tool: 'bash__exec', args: { command: 'rm *' }, action: 'deny' },
    { tool: 'bash__exec', args: { command: 'git *' }, action: 'allow' },
    { tool: 'bash__exec', args: { command: 'ls *' }, action: 'allow' },
    { tool: 'file-system__write', args: { path: '~/**' }, action: 'deny' },
  ],
};

/** The pre-parser policy: a regex split of the line, each piece matched as text (the floor). */
const SEPARATORS = /&&|\|\||[;|&\n]|\$\(|`/;
const wildcard = (pattern: string) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '.*')}$`, 's');
function regexSplitVerdict(line: string): string {
  const parts = line.split(SEPARATORS).map((p) => p.trim()).filter((p) => p !== '');
  let action = 'ask';
  for (const rule of POLICY.rules) {
    const pattern = rule.args?.command;
    if (pattern === undefined) continue;
    const regex = wildcard(pattern);
    const hit = rule.action === 'allow' ? parts.every((p) => regex.test(p)) : parts.some((p) => regex.test(p));
    if (hit && (rule.action === 'deny' || action === 'ask')) action = rule.action;
  }
  return action;
}

function percentiles(samples: number[]): { p50: number; p99: number } {
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };

}

/** Per-call microseconds over every line, CALLS times each, after a warm-up. */
function measure(run: (line: string) => unknown): { p50: number; p99: number } {
  for (let i = 0; i < WARMUP; i++) run(LINES[i % LINES.length] ?? '');
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    for (const line of LINES) {
      const started = performance.now();
      run(line);
      samples.push((performance.now() - started) * 1000);
    }
  }
  return percentiles(samples);
}

const loadStarted = performance.now();
const { loadShellParser } = await import('../bundles/base/extensions/tool-policy/shell-parser.ts');
const parser = await loadShellParser();
const loadMs = performance.now() - loadStarted;
const { ShellAnalyzer } = await import('../bundles/base/extensions/tool-policy/shell-analysis.ts');
const { evaluate } = await import('../bundles/base/extensions/tool-policy/policy-rules.ts');
const analyzer = new ShellAnalyzer(parser);

const floor = measure(regexSplitVerdict);
const parse = measure((line) => parser.parse(line).delete());
const full = measure((line) => evaluate(POLICY, 'bash__exec', { command: line }, false, analyzer));

const rows: Array<[string, { p50: number; p99: number }]> = [
  ['floor: regex split + text match (the old policy)', floor],
  ['tree-sitter parse only', parse],
  ['policy evaluation (parse + walk + rules)', full],
];
console.log(`bash parser load (import + wasm init + grammar): ${loadMs.toFixed(1)} ms`);
console.log(`per call over ${LINES.length} lines × ${CALLS} (µs)                p50       p99`);
for (const [label, { p50, p99 }] of rows) console.log(`${label.padEnd(52)} ${p50.toFixed(1).padStart(8)} ${p99.toFixed(1).padStart(9)}`);
console.log(`evaluation / floor at p50: ${(full.p50 / floor.p50).toFixed(0)}×; paid once per tool call that a command rule judges`);
// p99 of a ~50 µs call is where descheduling shows on a shared machine: print the load with it.
console.log(`load average (1 min) during the run: ${loadavg()[0]?.toFixed(1)}`);
console.log(
  JSON.stringify({
    bench: 'policy-parse',
    unit: 'us_per_call',
    lines: LINES.length,
    calls: CALLS,
    parserLoadMs: loadMs,
    regexFloorP50: floor.p50,
    regexFloorP99: floor.p99,
    parseP50: parse.p50,
    parseP99: parse.p99,
    evaluateP50: full.p50,
    evaluateP99: full.p99,
    ratioToFloorP50: full.p50 / floor.p50,
    loadAverage1m: loadavg()[0],
  }),
);
