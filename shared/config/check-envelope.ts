/** apiVersion, kind and metadata.name of every document (SPEC.md §1.1). */
import { API_VERSION, RESOURCE_KINDS, type ResourceKind } from '../types/resources.ts';
import { isJsonObject } from '../types/json.ts';
import type { BundleDocument } from './bundle-document.ts';
import { didYouMean } from './closest-names.ts';
import type { ProblemSink } from './problem-sink.ts';

export const RESOURCE_NAME_PATTERN = /^[a-z][a-z0-9-]{0,62}$/;
export const PACKAGE_NAME_PATTERN = /^(@[a-z0-9][a-z0-9-]*\/)?[a-z][a-z0-9-]*$/;
const KIND_SET: ReadonlySet<string> = new Set(RESOURCE_KINDS);

export function isResourceKind(value: unknown): value is ResourceKind {
  return typeof value === 'string' && KIND_SET.has(value);
}

/** A name that satisfies the rule, derived from a bad one (for suggestions). */
function slugName(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 63);
  return slug === '' ? 'my-resource' : slug;
}

function checkName(doc: BundleDocument, kind: ResourceKind, sink: ProblemSink): string | undefined {
  const metadata = doc.value.metadata;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  if (typeof name !== 'string' || name === '') {
    sink.at(doc, ['metadata', 'name'], 'E_CONFIG_INVALID_NAME', `${kind} has no metadata.name (a non-empty string is required)`, {
      suggestion: 'metadata:\n  name: my-resource',
    });
    return undefined;
  }
  if (kind === 'Tool' && name.includes('__')) {
    sink.at(doc, ['metadata', 'name'], 'E_CONFIG_TOOL_NAME_DOUBLE_UNDERSCORE', `Tool name "${name}" contains "__", which separates tool and export names (tool spec §4.3)`, {
      suggestion: `name: ${slugName(name)}`,
    });
    return name;
  }
  const pattern = kind === 'Package' ? PACKAGE_NAME_PATTERN : RESOURCE_NAME_PATTERN;
  if (!pattern.test(name)) {
    sink.at(
      doc,
      ['metadata', 'name'],
      'E_CONFIG_INVALID_NAME',
      `${kind} name "${name}" is invalid: use lowercase letters, digits and "-", start with a letter, at most 63 characters${kind === 'Package' ? ' (or @scope/name)' : ''}`,
      { suggestion: `name: ${slugName(name)}` },
    );
  }
  return name;
}

/** Sets `doc.kind` / `doc.name` when usable; reports what is wrong with the envelope. */
export function checkEnvelope(doc: BundleDocument, sink: ProblemSink): void {
  const { apiVersion, kind } = doc.value;
  if (kind === undefined || kind === null) {
    sink.at(doc, [], 'E_CONFIG_DOCUMENT_SKIPPED', `document ${doc.docIndex} has no kind and was skipped`, {
      severity: 'warning',
      suggestion: `add kind: one of ${RESOURCE_KINDS.join(', ')}`,
    });
    return;
  }
  if (!isResourceKind(kind)) {
    const hint = typeof kind === 'string' ? didYouMean(kind, RESOURCE_KINDS) : undefined;
    sink.at(doc, ['kind'], 'E_CONFIG_UNKNOWN_KIND', `unknown kind ${JSON.stringify(kind)}`, {
      suggestion: hint ?? `kind is one of ${RESOURCE_KINDS.join(', ')}`,
    });
    return;
  }
  if (apiVersion !== API_VERSION) {
    sink.at(
      doc,
      ['apiVersion'],
      'E_CONFIG_UNSUPPORTED_API_VERSION',
      apiVersion === undefined ? `${kind} has no apiVersion` : `unsupported apiVersion ${JSON.stringify(apiVersion)}`,
      { suggestion: `apiVersion: ${API_VERSION}` },
    );
  }
  doc.kind = kind;
  const name = checkName(doc, kind, sink);
  if (name !== undefined) doc.name = name;
}
