/**
 * Is a byte range text? A NUL byte or bytes that are not valid UTF-8 mean "binary": such a file is
 * described (size, reason) instead of dumped into the model's context.
 */

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

export type TextCheck = { text: true; content: string } | { text: false; reason: string };

/** Decodes `bytes` as UTF-8 text, or says why it is not text. */
export function decodeText(bytes: Uint8Array): TextCheck {
  if (bytes.includes(0)) return { text: false, reason: 'it contains NUL bytes' };
  try {
    return { text: true, content: fatalDecoder.decode(bytes) };
  } catch {
    return { text: false, reason: 'it is not valid UTF-8' };
  }
}

/** Bytes of an incomplete UTF-8 sequence at the end of a cut window (0–3). */
export function incompleteTailLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.byteLength); back += 1) {
    const byte = bytes[bytes.byteLength - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

/** Continuation bytes at the start of a window that begins inside a character (0–3). */
export function leadingContinuationLength(bytes: Uint8Array): number {
  let count = 0;
  while (count < 3 && count < bytes.byteLength && ((bytes[count] ?? 0) & 0xc0) === 0x80) count += 1;
  return count;
}
