/**
 * A fetch for the provider SDKs that makes every transport failure retryable. The AI SDK retries
 * `APICallError.isRetryable` (429 / 5xx, and network errors it recognises by code); it recognises
 * any other failure only as a `TypeError('fetch failed')` with a cause, so we rethrow in that form.
 * Aborts stay aborts.
 */

async function fetchOrRetryable(input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) throw error;
    throw new TypeError('fetch failed', { cause: error });
  }
}

export const networkRetryFetch: typeof fetch = Object.assign(fetchOrRetryable, { preconnect: fetch.preconnect });
