/** Where references live in each Kind, and which Kind each must point to (SPEC.md §1.2). */
import { isJsonObject, type JsonValue } from '../types/json.ts';
import type { ResourceKind } from '../types/resources.ts';
import type { PathSegment } from './json-path.ts';

export interface RefPosition {
  /** Path from the document root; '*' matches every index of a list. */
  pattern: ReadonlyArray<string>;
  expected: ResourceKind;
  /** Items may be written `{ref: …}`. */
  item: boolean;
  /** Items may carry `config` (Agent tools / extensions, ARCHITECTURE §5). */
  config: boolean;
}

export const REF_POSITIONS: Readonly<Partial<Record<ResourceKind, readonly RefPosition[]>>> = {
  Agent: [
    { pattern: ['spec', 'modelConfig', 'modelRef'], expected: 'Model', item: false, config: false },
    { pattern: ['spec', 'tools', '*'], expected: 'Tool', item: true, config: true },
    { pattern: ['spec', 'extensions', '*'], expected: 'Extension', item: true, config: true },
  ],
  Swarm: [
    { pattern: ['spec', 'entryAgent'], expected: 'Agent', item: false, config: false },
    { pattern: ['spec', 'agents', '*'], expected: 'Agent', item: true, config: false },
  ],
  Connection: [
    { pattern: ['spec', 'connectorRef'], expected: 'Connector', item: false, config: false },
    { pattern: ['spec', 'swarmRef'], expected: 'Swarm', item: false, config: false },
    { pattern: ['spec', 'ingress', 'rules', '*', 'route', 'agentRef'], expected: 'Agent', item: false, config: false },
  ],
};

export interface RefOccurrence {
  position: RefPosition;
  segments: PathSegment[];
  value: JsonValue;
}

function walk(value: JsonValue, pattern: ReadonlyArray<string>, prefix: PathSegment[], out: PathSegment[][], values: JsonValue[]): void {
  const [head, ...rest] = pattern;
  if (head === undefined) {
    out.push(prefix);
    values.push(value);
    return;
  }
  if (head === '*') {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, rest, [...prefix, i], out, values));
    return;
  }
  if (isJsonObject(value) && value[head] !== undefined) {
    const child = value[head];
    if (child !== undefined) walk(child, rest, [...prefix, head], out, values);
  }
}

/** Every reference present in a document of `kind`. */
export function refOccurrences(kind: ResourceKind, document: JsonValue): RefOccurrence[] {
  const found: RefOccurrence[] = [];
  for (const position of REF_POSITIONS[kind] ?? []) {
    const paths: PathSegment[][] = [];
    const values: JsonValue[] = [];
    walk(document, position.pattern, [], paths, values);
    paths.forEach((segments, i) => {
      const value = values[i];
      if (value !== undefined) found.push({ position, segments, value });
    });
  }
  return found;
}

/** True when `segments` lies at or below a reference position (the ref checker owns it). */
export function isUnderRefPosition(kind: ResourceKind, segments: readonly PathSegment[]): boolean {
  return (REF_POSITIONS[kind] ?? []).some(
    (position) =>
      segments.length >= position.pattern.length &&
      position.pattern.every((p, i) => (p === '*' ? typeof segments[i] === 'number' : segments[i] === p)),
  );
}
