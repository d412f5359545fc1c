/** Parses and resolves every reference of every document; remembers what each resolved to. */
import type { NamedDocument } from './bundle-document.ts';
import { formatPath, type PathSegment } from './json-path.ts';
import type { ProblemSink } from './problem-sink.ts';
import { refOccurrences } from './ref-positions.ts';
import { parseRef } from './ref-syntax.ts';
import type { ResourceIndex } from './resource-index.ts';

/** What each reference position resolved to (unresolvable ones are absent). */
export class RefResolutions {
  private readonly byDoc = new Map<NamedDocument, Map<string, NamedDocument>>();
  /** Documents whose references had at least one problem. */
  readonly broken = new Set<NamedDocument>();

  set(doc: NamedDocument, segments: readonly PathSegment[], target: NamedDocument): void {
    let map = this.byDoc.get(doc);
    if (!map) {
      map = new Map();
      this.byDoc.set(doc, map);
    }
    map.set(formatPath(segments), target);
  }

  get(doc: NamedDocument, segments: readonly PathSegment[]): NamedDocument | undefined {
    return this.byDoc.get(doc)?.get(formatPath(segments));
  }

  /** Every resolved target (used to know which built-in resources a bundle uses). */
  *targets(): Iterable<NamedDocument> {
    for (const map of this.byDoc.values()) yield* map.values();
  }
}

export function checkRefs(docs: readonly NamedDocument[], index: ResourceIndex<NamedDocument>, sink: ProblemSink): RefResolutions {
  const resolutions = new RefResolutions();
  for (const doc of docs) {
    for (const occurrence of refOccurrences(doc.kind, doc.value)) {
      const parsed = parseRef(occurrence.value, occurrence.position);
      if (!parsed.ok) {
        resolutions.broken.add(doc);
        for (const p of parsed.problems) {
          const options: { suggestion?: string; target?: 'key' | 'value' } = {};
          if (p.suggestion !== undefined) options.suggestion = p.suggestion;
          if (p.target !== undefined) options.target = p.target;
          sink.at(doc, [...occurrence.segments, ...p.subPath], p.code, p.message, options);
        }
        continue;
      }
      const resolution = index.resolve(parsed.ref, doc.packageName);
      if (resolution.ok) {
        resolutions.set(doc, occurrence.segments, resolution.target);
        continue;
      }
      resolutions.broken.add(doc);
      const isItem = typeof occurrence.value === 'object' && occurrence.value !== null && !Array.isArray(occurrence.value) && 'ref' in occurrence.value;
      const options: { suggestion?: string } = {};
      if (resolution.suggestion !== undefined) options.suggestion = resolution.suggestion;
      sink.at(doc, isItem ? [...occurrence.segments, 'ref'] : occurrence.segments, resolution.code, resolution.message, options);
    }
  }
  return resolutions;
}
