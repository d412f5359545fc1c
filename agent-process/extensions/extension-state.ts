/**
 * Per-extension, per-instance JSON state (SPEC.md §4.3): restored from `extensions/<name>.json`
 * at init, handed out as copies, written at turn end only when it changed.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '../../shared/types/json.ts';
import { isJsonValue } from '../validation/json-value.ts';

export class ExtensionStateStore {
  private readonly values = new Map<string, JsonValue | null>();
  private readonly dirty = new Set<string>();

  constructor(private readonly dir: string) {}

  /** Loads the stored value of `name`; returns a problem description when the file was unreadable (state starts empty). */
  load(name: string): string | undefined {
    const file = this.fileOf(name);
    this.values.set(name, null);
    if (!existsSync(file)) return undefined;
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (!isJsonValue(parsed)) return `${file} does not hold a JSON value`;
      this.values.set(name, parsed);
      return undefined;
    } catch (error) {
      return `${file} is not readable JSON: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  get(name: string): JsonValue | null {
    const value = this.values.get(name) ?? null;
    return value === null ? null : structuredClone(value);
  }

  set(name: string, value: JsonValue): void {
    if (!isJsonValue(value)) throw new TypeError(`Extension '${name}': state must be a JSON value (no functions, class instances, cycles or non-finite numbers)`);
    this.values.set(name, structuredClone(value));
    this.dirty.add(name);
  }

  /** Writes every changed state file (tmp + rename); returns the names written. */
  flush(): string[] {
    const written: string[] = [];
    if (this.dirty.size === 0) return written;
    mkdirSync(this.dir, { recursive: true });
    for (const name of this.dirty) {
      const file = this.fileOf(name);
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, `${JSON.stringify(this.values.get(name) ?? null)}\n`);
      renameSync(tmp, file);
      written.push(name);
    }
    this.dirty.clear();
    return written;
  }

  private fileOf(name: string): string {
    // Extension names may be scoped (`@x/y`): keep the file name flat and portable.
    return join(this.dir, `${name.replace(/[^A-Za-z0-9._-]/g, '-')}.json`);
  }
}
