/**
 * The optional Package document (SPEC.md §1.2, ARCHITECTURE §5): first document of the bundle's
 * goondan.yaml, at most once. Returns the user package name ('' without one).
 */
import { isJsonObject } from '../types/json.ts';
import { BASE_PACKAGE } from '../types/resources.ts';
import type { NamedDocument } from './bundle-document.ts';
import { specOf } from './bundle-document.ts';
import type { ProblemSink } from './problem-sink.ts';

export function checkPackageDocs(docs: readonly NamedDocument[], mainFile: string | undefined, sink: ProblemSink): string {
  let packageDoc: NamedDocument | undefined;
  for (const doc of docs) {
    if (doc.kind !== 'Package') continue;
    if (packageDoc) {
      sink.at(doc, ['kind'], 'E_CONFIG_PACKAGE_DUPLICATED', `a second Package document ("${doc.name}"); the bundle is already package "${packageDoc.name}" (declared in ${packageDoc.file})`, {
        suggestion: 'keep one Package document, first in goondan.yaml',
      });
      continue;
    }
    packageDoc = doc;
    if (doc.file !== mainFile || doc.docIndex !== 0) {
      sink.at(
        doc,
        ['kind'],
        'E_CONFIG_PACKAGE_DOC_POSITION',
        mainFile === undefined
          ? 'the Package document must be the first document of goondan.yaml, and this bundle has no goondan.yaml at its root'
          : `the Package document must be the first document of ${mainFile}`,
        { suggestion: 'move the Package document to the top of goondan.yaml (before the first ---)' },
      );
    }
    const dependencies = specOf(doc)?.dependencies;
    if (Array.isArray(dependencies)) {
      dependencies.forEach((dep, i) => {
        const name = isJsonObject(dep) ? dep.name : undefined;
        if (typeof name === 'string' && name !== BASE_PACKAGE) {
          sink.at(doc, ['spec', 'dependencies', i], 'E_CONFIG_DEPENDENCY_UNSUPPORTED', `dependency "${name}" is not installed: this goondan version loads only the bundle and ${BASE_PACKAGE}`, {
            severity: 'warning',
            suggestion: 'copy the resources you need into the bundle',
          });
        }
      });
    }
  }
  return packageDoc?.name ?? '';
}
