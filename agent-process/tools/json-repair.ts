/**
 * Tool-call arguments the model sent as broken JSON (seed 004 §8). Only unambiguous damage is
 * repaired — trailing text or a Markdown fence after the object, trailing commas, an unclosed
 * string or unclosed brackets at the end — and a repair counts only when the result parses to an
 * object that the caller's schema accepts. Anything else is reported, never replaced by `{}`.
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
  if (repaired !== null) {
    try {
      const value: unknown = JSON.parse(repaired.text);
      if (isJsonObject(value) && accepts(value)) return { ok: true, value, repairs: repaired.repairs };
    } catch {
      // fall through to the report
    }
  }
  return { ok: false, reason: `arguments are not valid JSON: ${parseError}` };
}

export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The repaired text and what was done to it, or null when the damage is not one of the known kinds. */
export function repairJsonText(raw: string): { text: string; repairs: string[] } | null {
  const repairs: string[] = [];
  let text = raw.trim();
  const fence = /^```[a-zA-Z]*\s*\n?/.exec(text);
  if (fence) {
    text = text.slice(fence[0].length);
    repairs.push('removed a leading Markdown fence');
  }
  if (!text.startsWith('{')) return null;

  const stack: string[] = [];
  let out = '';
  let inString = false;
  let escaped = false;
  let end = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      stack.push(ch === '{' ? '}' : ']');
      out += ch;
    } else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return null; // mismatched bracket: not a damage kind we repair
      const trimmed = out.trimEnd();
      if (trimmed.endsWith(',')) {
        out = trimmed.slice(0, -1);
        repairs.push('removed a trailing comma');
      }
      out += ch;
      if (stack.length === 0) {
        end = i;
        break;
      }
    } else {
      out += ch;
    }
  }

  if (end >= 0) {
    if (text.slice(end + 1).trim() !== '') repairs.push('removed text after the JSON object');
    return repairs.length > 0 ? { text: out, repairs } : null;
  }

  // The text stopped inside the object: close what is open, if that is unambiguous.
  if (inString) {
    if (escaped) return null; // ends in a lone backslash: the escape is unknowable
    out += '"';
    repairs.push('closed an unterminated string');
  }
  let tail = out.trimEnd();
  if (tail.endsWith(',')) {
    tail = tail.slice(0, -1);
    repairs.push('removed a trailing comma');
  }
  if (tail.endsWith(':')) return null; // a key without a value
  out = tail + stack.reverse().join('');
  repairs.push('closed unclosed brackets');
  return { text: out, repairs };
}
