/**
 * Name lookup across packages and the ref decision table of ARCHITECTURE §5: a ref with `package`
 * resolves only there; otherwise the referrer's own package first, then `@goondan/base`, else a
 * unique match in any package; several matches are ambiguous.
 */
import { BASE_PACKAGE, type ResourceKind } from '../types/resources.ts';
import { closestNames } from './closest-names.ts';
import type { ProblemCode } from './problem-codes.ts';
import { type ParsedRef, showRef } from './ref-syntax.ts';

export interface IndexedEntry {
  kind: ResourceKind;
  name: string;
  packageName: string;
}

export type Resolution<T> =
  | { ok: true; target: T }
  | { ok: false; code: Extract<ProblemCode, 'E_CONFIG_REF_NOT_FOUND' | 'E_CONFIG_AMBIGUOUS_REF'>; message: string; suggestion?: string };

const key = (...parts: string[]) => parts.join('\u0000');

export class ResourceIndex<T extends IndexedEntry> {
  private readonly exact = new Map<string, T>();
  private readonly byName = new Map<string, T[]>();
  private readonly byKind = new Map<ResourceKind, T[]>();

  constructor(entries: Iterable<T>) {
    for (const entry of entries) {
      const exactKey = key(entry.kind, entry.packageName, entry.name);
      if (this.exact.has(exactKey)) continue; // duplicates are reported elsewhere; the first one wins
      this.exact.set(exactKey, entry);
      const nameKey = key(entry.kind, entry.name);
      this.byName.set(nameKey, [...(this.byName.get(nameKey) ?? []), entry]);
      this.byKind.set(entry.kind, [...(this.byKind.get(entry.kind) ?? []), entry]);
    }
  }

  get(kind: ResourceKind, packageName: string, name: string): T | undefined {
    return this.exact.get(key(kind, packageName, name));
  }

  ofKind(kind: ResourceKind): readonly T[] {
    return this.byKind.get(kind) ?? [];
  }

  resolve(ref: ParsedRef, referrerPackage: string): Resolution<T> {
    if (ref.package !== undefined) {
      const target = this.get(ref.kind, ref.package, ref.name);
      if (target) return { ok: true, target };
      const inPackage = this.ofKind(ref.kind).filter((e) => e.packageName === ref.package);
      return this.notFound(ref, inPackage);
    }
    const own = this.get(ref.kind, referrerPackage, ref.name) ?? this.get(ref.kind, BASE_PACKAGE, ref.name);
    if (own) return { ok: true, target: own };
    const matches = this.byName.get(key(ref.kind, ref.name)) ?? [];
    const [only] = matches;
    if (matches.length === 1 && only) return { ok: true, target: only };
    if (matches.length > 1) {
      const packages = matches.map((m) => m.packageName || '(this bundle)');
      return {
        ok: false,
        code: 'E_CONFIG_AMBIGUOUS_REF',
        message: `${ref.kind}/${ref.name} exists in several packages: ${packages.join(', ')}`,
        suggestion: `add package, e.g. {kind: ${ref.kind}, name: ${ref.name}, package: "${matches[0]?.packageName ?? ''}"}`,
      };
    }
    return this.notFound(ref, this.ofKind(ref.kind));
  }

  private notFound(ref: ParsedRef, candidates: readonly T[]): Resolution<T> {
    const close = closestNames(ref.name, candidates.map((c) => c.name));
    const available = [...new Set(candidates.map((c) => c.name))].sort();
    const suggestion =
      close.length > 0
        ? `did you mean ${close.map((n) => `"${ref.kind}/${n}"`).join(' or ')}?`
        : available.length > 0
          ? `existing ${ref.kind} names: ${available.slice(0, 10).join(', ')}${available.length > 10 ? ', …' : ''}`
          : `define ${/^[AEIOU]/.test(ref.kind) ? 'an' : 'a'} ${ref.kind} named "${ref.name}"`;
    return { ok: false, code: 'E_CONFIG_REF_NOT_FOUND', message: `${showRef(ref)} not found`, suggestion };
  }
}
