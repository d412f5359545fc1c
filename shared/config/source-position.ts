/** Maps a path inside a parsed YAML document to a 1-based line/column via the `yaml` node ranges. */
import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type LineCounter } from 'yaml';
import type { PathSegment } from './json-path.ts';

export interface LineColumn {
  line: number;
  column: number;
}

/** Where a problem points: the value at the path, or the key that names it. */
export type PositionTarget = 'value' | 'key';

function rangeStart(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}

function keyMatches(key: unknown, segment: PathSegment): boolean {
  return isScalar(key) ? String(key.value) === String(segment) : String(key) === String(segment);
}

/**
 * The position of `segments` in `doc`: the value node (or its key when `target` is 'key'). When
 * the path does not fully exist (a missing required field), the deepest existing key is used.
 */
export function locate(doc: Document, lineCounter: LineCounter, segments: readonly PathSegment[], target: PositionTarget = 'value'): LineColumn {
  let node: unknown = doc.contents;
  let keyNode: unknown;
  let complete = true;
  for (const segment of segments) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyMatches(p.key, segment));
      if (!pair) {
        complete = false;
        break;
      }
      keyNode = pair.key;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      keyNode = undefined;
      node = node.items[segment];
    } else {
      complete = false;
      break;
    }
  }
  if (isAlias(node)) node = node.resolve(doc);
  // A block collection starts on the line after its key; the key is where a reader looks.
  const blockCollection = (isMap(node) || isSeq(node)) && !node.flow;
  const offset = complete
    ? target === 'key' || blockCollection
      ? (rangeStart(keyNode) ?? rangeStart(node))
      : (rangeStart(node) ?? rangeStart(keyNode))
    : (rangeStart(keyNode) ?? rangeStart(node));
  const fallback = offset ?? rangeStart(doc.contents) ?? 0;
  const pos = lineCounter.linePos(fallback);
  return { line: pos.line, column: pos.col };
}
