/**
 * A provider fetch that reports a 429 with Retry-After (or OpenAI's retry-after-ms) to `onThrottled`,
 * so the orchestrator pauses the Model for every agent using it; the answer itself goes on to the
 * AI SDK unchanged (which retries it after the delay).
 */
export function throttleReportingFetch(inner: typeof fetch, onThrottled: (retryAfterMs: number) => void): typeof fetch {
  const reporting = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    const response = await inner(input, init);
    if (response.status === 429) {
      const ms = retryAfterMs(response.headers);
      if (ms !== undefined) onThrottled(ms);
    }
    return response;
  };
  return Object.assign(reporting, { preconnect: fetch.preconnect });
}

/** `retry-after-ms`, or `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
