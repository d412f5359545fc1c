/**
 * Tool-call arguments the model sent as broken JSON (seed 004 §8). Only damage whose repair cannot
 * change the meaning is repaired: a byte-order mark, a Markdown code fence around the object, and
 * trailing commas. Output that stops inside a string, array or object was cut off — completing it
 * would guess (`rm -rf ./build` of `rm -rf ./build/cache`), so it is reported, never closed. Text
 * after the object is reported too: it may be a second call or the rest of a broken string. A repair
 * counts only when the result parses to an object the caller's schema accepts.
 */
import { isJsonObject, type JsonObject } from '../../shared/types/json.ts';

export type ArgumentsParse =
  | { ok: true; value: JsonObject; repairs: string[] }
  | { ok: false; reason: string };

export function parseToolArguments(raw: string, accepts: (value: JsonObject) => boolean = () => true): ArgumentsParse {
  // Providers encode "no arguments" as an empty string.
  if (raw.trim() === '') return { ok: true, value: {}, repairs: [] };
  let parseError: string;
  try {
    const value: unknown = JSON.parse(raw);
    if (isJsonObject(value)) return { ok: true, value, repairs: [] };
    return { ok: false, reason: `arguments must be a JSON object, got ${describeJsonType(value)}` };
  } catch (error) {
    parseError = error instanceof Error ? error.message : String(error);
  }
  const repaired = repairJsonText(raw);
  if (repaired.ok) {
    try {
      const value: unknown = JSON.parse(repaired.text);
      if (isJsonObject(value) && accepts(value)) return { ok: true, value, repairs: repaired.repairs };
    } catch {
      // fall through to the report
    }
  }
  const why = repaired.ok ? '' : ` (${repaired.damage})`;
  return { ok: false, reason: `arguments are not valid JSON${why}: ${parseError}` };
}

export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export type JsonRepair = { ok: true; text: string; repairs: string[] } | { ok: false; damage: string };

const FENCED = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?[ \t]*```$/;

/** The repaired text and what was done to it, or what damage was found that is not repaired. */
export function repairJsonText(raw: string): JsonRepair {
  const repairs: string[] = [];
  let text = raw;
  if (text.startsWith('\uFEFF')) {
    text = text.slice(1);
    repairs.push('removed a byte-order mark');
  }
  text = text.trim();
  const fence = FENCED.exec(text);
  if (fence) {
    text = (fence[1] ?? '').trim();
    repairs.push('removed a Markdown code fence');
  }
  if (!text.startsWith('{')) return { ok: false, damage: 'it is not a JSON object' };

  const stack: string[] = [];
  let out = '';
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return { ok: false, damage: `a mismatched "${ch}"` };
      const trimmed = out.trimEnd();
      if (trimmed.endsWith(',')) {
        out = trimmed.slice(0, -1).trimEnd();
        // `[,]` or `[1,,]` hold an empty element, not a trailing comma.
        if (/[[{,]$/.test(out)) return { ok: false, damage: 'an empty element before a closing bracket' };
        repairs.push('removed a trailing comma');
      }
      if (stack.length === 0) {
        if (text.slice(i + 1).trim() !== '') return { ok: false, damage: 'there is text after the JSON object' };
        out += ch;
        return repairs.length > 0 ? { ok: true, text: out, repairs } : { ok: false, damage: 'no repairable damage found' };
      }
    }
    out += ch;
  }
  // The text stopped inside the object: the output was cut off, and any completion would be a guess.
  return { ok: false, damage: inString ? 'the text ends inside a string: the output looks cut off' : 'the text ends inside an unclosed object or array: the output looks cut off' };
}
