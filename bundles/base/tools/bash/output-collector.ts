/**
 * Bounded capture of one output stream. Keeps the first and the last half of the cap (the start
 * shows what ran, the end shows how it failed) and counts everything in between, so a command that
 * prints gigabytes costs at most `capBytes` of memory and still never blocks on a full pipe.
 */
export class OutputCollector {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  /** Every byte the stream produced, kept or not. */
  totalBytes = 0;

  constructor(capBytes: number) {
    this.headCap = Math.ceil(capBytes / 2);
    this.tailCap = Math.floor(capBytes / 2);
  }

  push(chunk: Uint8Array): void {
    this.totalBytes += chunk.byteLength;
    let rest = chunk;
    if (this.headBytes < this.headCap) {
      const take = Math.min(this.headCap - this.headBytes, rest.byteLength);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.byteLength === 0 || this.tailCap === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.byteLength;
    // Drop whole chunks from the front while the rest still covers the tail window.
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.byteLength ?? 0) >= this.tailCap) {
      this.tailBytes -= this.tail.shift()?.byteLength ?? 0;
    }
  }

  get truncated(): boolean {
    return this.totalBytes > this.headCap + this.tailCap;
  }

  /** The kept text; an omission marker says how many bytes were dropped from the middle. */
  text(): string {
    const head = concat(this.head);
    const tail = concat(this.tail);
    if (!this.truncated) return decodeUtf8(concat([head, tail]));
    const keptTail = tail.subarray(tail.byteLength - this.tailCap);
    const omitted = this.totalBytes - head.byteLength - keptTail.byteLength;
    return `${decodeUtf8(head, true)}\n[... ${omitted} bytes omitted ...]\n${decodeUtf8(skipContinuationBytes(keptTail))}`;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** `cut`: the bytes may end inside a UTF-8 sequence; drop that partial character. */
function decodeUtf8(bytes: Uint8Array, cut = false): string {
  return new TextDecoder('utf-8').decode(bytes, { stream: cut });
}

/** The tail window may start inside a UTF-8 sequence; skip to the next character start. */
function skipContinuationBytes(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < 3 && start < bytes.byteLength && ((bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return bytes.subarray(start);
}
