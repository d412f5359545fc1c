/** Names are unique per Kind within a package (SPEC.md §1.1). */
import type { NamedDocument } from './bundle-document.ts';
import type { ProblemSink } from './problem-sink.ts';
import { locate } from './source-position.ts';

export function checkDuplicateNames(docs: readonly NamedDocument[], sink: ProblemSink): void {
  const first = new Map<string, NamedDocument>();
  for (const doc of docs) {
    if (doc.kind === 'Package') continue; // duplicated Package documents have their own check
    const key = `${doc.kind}\u0000${doc.packageName}\u0000${doc.name}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, doc);
      continue;
    }
    const { line } = locate(earlier.doc, earlier.lineCounter, ['metadata', 'name']);
    sink.at(doc, ['metadata', 'name'], 'E_CONFIG_DUPLICATE_NAME', `${doc.kind} "${doc.name}" is already defined at ${earlier.file}:${line}`, {
      suggestion: 'rename one of them or remove the duplicate',
    });
  }
}
