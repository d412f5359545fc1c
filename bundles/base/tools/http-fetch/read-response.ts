/**
 * Reads at most `maxBytes` of a response body and turns it into what a model can use: parsed JSON,
 * text, or a short description of binary content. The content type decides; without one, the bytes
 * are sniffed (NUL bytes or invalid UTF-8 mean binary).
 */
import type { JsonObject, JsonValue } from '../../../../shared/types/index.ts';

export interface BodyBytes {
  bytes: Uint8Array;
  /** Bytes received before the cap (equals bytes.byteLength). */
  size: number;
  truncated: boolean;
}

export async function readCapped(response: Response, maxBytes: number): Promise<BodyBytes> {
  if (response.body === null) return { bytes: new Uint8Array(0), size: 0, truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, size, truncated };
}

type BodyKind = 'json' | 'text' | 'binary' | 'unknown';

function kindOf(mediaType: string): BodyKind {
  if (mediaType === '') return 'unknown';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return 'json';
  if (mediaType.startsWith('text/') || mediaType.endsWith('+xml') || TEXT_TYPES.has(mediaType)) return 'text';
  return 'binary';
}

const TEXT_TYPES = new Set([
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-www-form-urlencoded',
  'application/x-ndjson',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/sql',
  'application/graphql',
]);

/** The body fields of the tool output: `json` | `text` (+ notes) | `binary: true`. */
export function describeBody(contentType: string, body: BodyBytes): JsonObject {
  const [mediaType = '', ...params] = contentType.split(';').map((part) => part.trim());
  const charset = params.find((param) => param.toLowerCase().startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  const kind = kindOf(mediaType.toLowerCase());
  if (kind === 'binary') return { binary: true };
  const text = decode(body, charset);
  if (text === undefined) return { binary: true };
  if (kind === 'json') {
    if (body.truncated) return { text, note: 'The JSON response was cut at maxBytes, so it is returned as text; raise maxBytes to get it parsed.' };
    try {
      const json: JsonValue = JSON.parse(text);
      return { json };
    } catch (error) {
      return { text, jsonError: error instanceof Error ? error.message : String(error) };
    }
  }
  return { text };
}

/** Charsets decoded as declared; any other label falls back to UTF-8 (and to "binary" if that fails). */
const CHARSETS = ['utf-8', 'utf8', 'utf-16le', 'utf-16be', 'utf-16', 'iso-8859-1', 'latin1', 'windows-1252', 'us-ascii', 'ascii'] as const satisfies readonly Bun.Encoding[];

/** Text of the body, or undefined when it does not look like text (sniffed when no charset is given). */
function decode(body: BodyBytes, charset: string | undefined): string | undefined {
  if (body.bytes.includes(0)) return undefined;
  const label = CHARSETS.find((name) => name === charset?.toLowerCase()) ?? 'utf-8';
  const decoder = new TextDecoder(label, { fatal: true });
  try {
    // stream: a cut body may end inside a character; that partial character is dropped.
    return decoder.decode(body.bytes, { stream: body.truncated });
  } catch {
    return undefined;
  }
}
