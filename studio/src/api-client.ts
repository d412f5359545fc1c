/**
 * The page's calls to the daemon's API: same origin, authorized by the studio session cookie
 * (HttpOnly: the page never holds a credential), and marked with the header the daemon requires
 * on changes made with that cookie (CSRF). A 401 sends the page to its login form.
 */
import { isObject, obj, optStr } from './json-fields.ts';

export const STUDIO_REQUEST_HEADER = 'x-goondan-studio';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

export interface ApiClient {
  get(path: string): Promise<unknown>;
  call(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown>;
  text(path: string): Promise<string>;
}

export function apiClient(onUnauthorized: () => void): ApiClient {
  const request = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const headers: Record<string, string> = { [STUDIO_REQUEST_HEADER]: '1' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    if (response.status === 401) onUnauthorized();
    if (!response.ok) throw await errorOf(response);
    return response;
  };
  return {
    get: async (path) => (await request('GET', path)).json(),
    call: async (method, path, body) => {
      const response = await request(method, path, body);
      return response.status === 204 ? undefined : response.json();
    },
    text: async (path) => (await request('GET', path)).text(),
  };
}

export async function errorOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => undefined);
  const error = isObject(body) ? obj(body, 'error') : undefined;
  return new ApiError(response.status, optStr(error ?? {}, 'code') ?? `HTTP_${response.status}`, optStr(error ?? {}, 'message') ?? response.statusText, error ? optStr(error, 'suggestion') : undefined);
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}${error.suggestion ? ` — ${error.suggestion}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
