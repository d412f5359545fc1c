/**
 * A request body read with a bound, for HTTP endpoints outside the daemon's own server (the
 * webhook-style connectors of `@goondan/base`, which do not import from orchestrator/). A chunked
 * body (no Content-Length) must not be buffered whole before its size is known: 8 uploads of
 * 100 MB took a connector to 1 GB. The stream is read chunk by chunk and dropped as soon as it
 * passes `maxBytes`; what is left of the upload is never read.
 */

export type BoundedBody = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too-large' | 'aborted' };

export async function readBoundedBody(request: Request, maxBytes: number): Promise<BoundedBody> {
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes) return { ok: false, reason: 'too-large' };
  const body = request.body;
  if (body === null) return { ok: true, bytes: new Uint8Array(0) };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        void reader.cancel().catch(() => {});
        return { ok: false, reason: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    // The client went away mid-upload (or the server's own size cap cut the stream).
    return { ok: false, reason: 'aborted' };
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/** The body as UTF-8 text, or why it was not read. */
export async function readBoundedText(request: Request, maxBytes: number): Promise<{ ok: true; text: string } | { ok: false; reason: 'too-large' | 'aborted' }> {
  const body = await readBoundedBody(request, maxBytes);
  return body.ok ? { ok: true, text: new TextDecoder().decode(body.bytes) } : body;
}
