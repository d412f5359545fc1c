/** One YAML document of a loaded bundle, with everything needed to point problems at its source. */
import type { Document, LineCounter } from 'yaml';
import type { LineColumn } from './source-position.ts';
import type { JsonObject } from '../types/json.ts';
import type { ResourceKind } from '../types/resources.ts';

export interface BundleDocument {
  /** Absolute path of the YAML file. */
  file: string;
  /** 0-based index of the document in its file. */
  docIndex: number;
  doc: Document;
  lineCounter: LineCounter;
  /** Where the document starts, when known without parsing (cached built-in documents). */
  rootPosition?: LineColumn;
  value: JsonObject;
  /** Package of the resource: the bundle's Package name ('' without one) or `@goondan/base`. */
  packageName: string;
  /** Directory that entry / systemRef resolve against. */
  bundleRoot: string;
  /** True for the implicit `@goondan/base` package (missing entries are warnings there). */
  builtin: boolean;
  /** Set once the envelope check passed: a known kind and a usable name. */
  kind?: ResourceKind;
  name?: string;
}

/** A document whose envelope is valid. */
export type NamedDocument = BundleDocument & { kind: ResourceKind; name: string };

export function isNamed(doc: BundleDocument): doc is NamedDocument {
  return doc.kind !== undefined && doc.name !== undefined;
}

/** The document's `spec` when it is an object. */
export function specOf(doc: BundleDocument): JsonObject | undefined {
  const spec = doc.value.spec;
  return typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? spec : undefined;
}

export function describeDoc(doc: NamedDocument): string {
  return `${doc.kind}/${doc.name}${doc.packageName ? ` (${doc.packageName})` : ''}`;
}
