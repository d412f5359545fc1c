/**
 * Which instance keys are accepted at every ingress (HTTP API, CLI, connectors, inter-agent calls).
 * A key names a conversation and its state directory, and travels in process arguments and logs:
 * control characters (NUL above all, which crash-looped the spawn) and unbounded lengths are refused.
 */

export const MAX_INSTANCE_KEY_BYTES = 256;

// C0 controls, DEL and C1 controls.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
// Half a surrogate pair has no UTF-8 form: two such keys would encode (and hash) alike.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The problem with `key` as one sentence, or undefined when it is acceptable. */
export function validateInstanceKey(key: string): string | undefined {
  const control = CONTROL_CHARACTER.exec(key);
  if (control) {
    const code = control[0].charCodeAt(0).toString(16).padStart(4, '0');
    return `the instance key contains the control character U+${code.toUpperCase()} at position ${control.index}; use printable characters only`;
  }
  // URLs resolve them away (…/instances/.. is …/), so such an instance could never be read or deleted.
  if (key === '.' || key === '..') return `the instance key "${key}" cannot be addressed in a URL path (/v1/instances/{key}); choose another key`;
  if (LONE_SURROGATE.test(key)) return 'the instance key is not valid Unicode (a lone surrogate); send it as well-formed UTF-8';
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_INSTANCE_KEY_BYTES) return `the instance key is ${bytes} bytes long (UTF-8); the limit is ${MAX_INSTANCE_KEY_BYTES}`;
  return undefined;
}
