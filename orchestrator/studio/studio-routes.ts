/**
 * The studio on the daemon's own host and port (issue 13): `GET /studio` and its assets (built
 * into studio/dist at install time, never at run time), the login exchange that turns a one-time
 * code or the API token into a session cookie, and `POST /v1/studio/login-codes` for
 * `goondan studio`. The page shell loads without a credential; everything it shows needs one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApiRoute } from '../http/api-server.ts';
import { errorResponse, jsonResponse } from '../http/http-errors.ts';
import { readJsonBody } from '../http/request-body.ts';
import { type StudioSessions, sessionCookie } from './studio-sessions.ts';
import { compiledValidator } from '../../shared/validation/compiled-validator.ts';

export const STUDIO_DIST = resolve(import.meta.dir, '../../studio/dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Nothing but this origin: no CDN, no inline script, no inline style but the page's own stylesheet
 * (inlined at build time, allowed by its hash), and no framing (clickjacking of Approve).
 */
function pageHeaders(dist: string): Record<string, string> {
  let styleHash = '';
  try {
    styleHash = ` 'sha256-${readFileSync(join(dist, 'style.sha256'), 'utf8').trim()}'`;
  } catch {
    // Not built: the page itself answers 503 below.
  }
  return {
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'${styleHash}; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

const validateLogin = compiledValidator<{ code?: string; token?: string }>({
  options: { allErrors: true, strict: false },
  schema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    properties: {
      code: { type: 'string', minLength: 1, maxLength: 200 },
      token: { type: 'string', minLength: 1, maxLength: 1000 },
    },
  },
});

export interface StudioRouteOptions {
  sessions: StudioSessions;
  acceptsToken(token: string): boolean;
  onMalformedBody(): void;
  /** Where the built assets are (tests point it elsewhere). */
  distDir?: string;
}

export function studioRoutes(options: StudioRouteOptions): ApiRoute[] {
  const dist = options.distDir ?? STUDIO_DIST;
  return [
    { method: 'GET', pattern: /^\/studio\/?$/, public: true, handle: async () => asset(dist, 'index.html') },
    { method: 'GET', pattern: /^\/studio\/([A-Za-z0-9_-]+\.(?:js|svg))$/, public: true, handle: async (_request, match) => asset(dist, match[1] ?? '') },
    {
      method: 'POST',
      pattern: /^\/studio\/session$/,
      public: true,
      handle: async (request) => {
        const body = await readJsonBody(request, validateLogin, options.onMalformedBody, { example: '{"code": "<login code>"} or {"token": "<API token>"}' });
        if (!body.ok) return body.response;
        const { code, token } = body.value;
        const session = code !== undefined ? options.sessions.redeemLoginCode(code) : token !== undefined && options.acceptsToken(token) ? options.sessions.openSession() : undefined;
        if (session === undefined) {
          return code !== undefined
            ? errorResponse(401, 'E_STUDIO_BAD_LOGIN_CODE', 'this login code is unknown, used or expired (codes work once, for two minutes)', {
                suggestion: "run 'goondan studio' again for a fresh link, or paste the API token",
              })
            : errorResponse(401, 'E_STUDIO_BAD_TOKEN', 'this is not the API token of this daemon', {
                suggestion: 'paste the content of <state-root>/runtime/api-token, or GOONDAN_API_TOKEN if the daemon was started with one',
              });
        }
        return new Response(null, { status: 204, headers: { 'set-cookie': sessionCookie(request, session), 'cache-control': 'no-store' } });
      },
    },
    {
      method: 'POST',
      pattern: /^\/v1\/studio\/login-codes$/,
      handle: async () => {
        const issued = options.sessions.issueLoginCode();
        return jsonResponse(201, { ...issued, path: `/studio#code=${issued.code}` }, { 'cache-control': 'no-store' });
      },
    },
  ];
}

function asset(dist: string, name: string): Response {
  const path = join(dist, name);
  if (!existsSync(join(dist, 'index.html'))) {
    return errorResponse(503, 'E_STUDIO_NOT_BUILT', `the studio's assets are not built (${dist} has no index.html)`, {
      suggestion: "run 'npm run build:studio' (npm install / npm ci do it)",
    });
  }
  if (!existsSync(path)) return errorResponse(404, 'E_HTTP_NOT_FOUND', `the studio has no asset '${name}'`);
  const type = CONTENT_TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream';
  // Read per request: a rebuilt stylesheet has a new hash, and the page is fetched rarely.
  return new Response(Bun.file(path), { headers: { ...pageHeaders(dist), 'content-type': type } });
}
