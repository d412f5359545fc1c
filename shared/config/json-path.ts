/** Paths inside a YAML document: segments for lookups, `spec.tools[0]` text for people. */
export type PathSegment = string | number;

/** `/spec/tools/0` (ajv instancePath) → `['spec', 'tools', 0]`. */
export function pointerToSegments(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

/** `['spec', 'tools', 0]` → `spec.tools[0]`; keys that are not identifiers are quoted. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
