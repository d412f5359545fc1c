/**
 * Narrowing the API's JSON in the page: the daemon is another process, so every field is read
 * through these guards instead of being trusted as a type.
 */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `body[key]` as a list of objects (anything else in it dropped). */
export function objects(body: unknown, key: string): Json[] {
  const list = isObject(body) ? body[key] : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

export function str(o: Json, key: string): string {
  const value = o[key];
  return typeof value === 'string' ? value : '';
}

export function optStr(o: Json, key: string): string | undefined {
  const value = o[key];
  return typeof value === 'string' ? value : undefined;
}

export function num(o: Json, key: string): number | null {
  const value = o[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function obj(o: Json, key: string): Json | undefined {
  const value = o[key];
  return isObject(value) ? value : undefined;
}
