/**
 * A request body read with a bound: a chunked body (no Content-Length) used to be buffered whole
 * before its size was checked, so twelve 120 MB uploads to the unauthenticated studio login took the
 * daemon to 1.46 GB. The stream is read chunk by chunk and dropped as soon as it passes `maxBytes`.
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
        // What is left of the upload is not read: the connection is closed after the answer.
        void reader.cancel().catch(() => {});
        return { ok: false, reason: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    // The client went away mid-upload.
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
