/**
 * A unified diff of two texts by lines (3 lines of context), for the approval preview of a write
 * (seed 004 §6.2 `preview`). The common head and tail are stripped first; the middle is aligned by
 * longest common subsequence when it is small enough, else shown as replaced wholesale.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT = 3;
/** Cells of the LCS table at most (old × new middle lines). */
const MAX_TABLE = 2_000_000;

export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return `${path}: no change`;
  const ops = diffLines(splitLines(before), splitLines(after));
  return [`--- ${path}`, `+++ ${path}`, ...hunks(ops)].join('\n');
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function diffLines(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (lines: string[]): Op[] => lines.map((line) => ({ kind: ' ', line }));
  const middle = middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...same(a.slice(0, head)), ...middle, ...same(a.slice(a.length - tail))];
}

function middleOps(a: string[], b: string[]): Op[] {
  const removed = a.map((line): Op => ({ kind: '-', line }));
  const added = b.map((line): Op => ({ kind: '+', line }));
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_TABLE) return [...removed, ...added];
  // lcs[i][j] = length of the LCS of a[i..] and b[j..], in one flat table.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const left = a[i] ?? '';
    if (left === b[j]) {
      ops.push({ kind: ' ', line: left });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      ops.push({ kind: '-', line: left });
      i++;
    } else {
      ops.push({ kind: '+', line: b[j] ?? '' });
      j++;
    }
  }
  return [...ops, ...removed.slice(i), ...added.slice(j)];
}

/** `@@ -l,n +l,n @@` hunks of the changed lines with their context. */
function hunks(ops: Op[]): string[] {
  const out: string[] = [];
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  let k = 0;
  while (k < changed.length) {
    const start = Math.max(0, (changed[k] ?? 0) - CONTEXT);
    let end = (changed[k] ?? 0) + CONTEXT;
    while (k + 1 < changed.length && (changed[k + 1] ?? 0) - CONTEXT <= end + 1) end = (changed[++k] ?? 0) + CONTEXT;
    k++;
    end = Math.min(ops.length - 1, end);
    const before = ops.slice(0, start);
    const slice = ops.slice(start, end + 1);
    const oldStart = before.filter((op) => op.kind !== '+').length + 1;
    const newStart = before.filter((op) => op.kind !== '-').length + 1;
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...slice.map((op) => `${op.kind}${op.line}`));
  }
  return out;
}
