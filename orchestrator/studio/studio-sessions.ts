/**
 * Studio logins (issue 13): `goondan studio` asks the daemon for a one-time login code (short-lived,
 * single use) and puts it in the URL it prints; the page exchanges it — or a pasted API token — for
 * a session cookie (`HttpOnly`, `SameSite=Strict`) that authorizes its API calls like the bearer
 * token. Sessions live in the daemon's memory: a restarted daemon asks for a new login.
 */
import { randomBytes } from 'node:crypto';

export const LOGIN_CODE_TTL_MS = 120_000;
export const SESSION_TTL_MS = 12 * 3600_000;
/** Oldest sessions are dropped beyond this: each login adds one, nothing else removes them early. */
const MAX_SESSIONS = 64;
/** Requests authorized by the cookie must also carry this header when they change anything (CSRF). */
export const STUDIO_REQUEST_HEADER = 'x-goondan-studio';

const secret = () => randomBytes(32).toString('base64url');

export class StudioSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  issueLoginCode(): { code: string; expiresAt: string } {
    this.sweep();
    const code = secret();
    const expiresAt = this.now() + LOGIN_CODE_TTL_MS;
    this.codes.set(code, expiresAt);
    return { code, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Spends a login code: a new session id, or undefined when the code is unknown, used or expired. */
  redeemLoginCode(code: string): string | undefined {
    const expiresAt = this.codes.get(code);
    this.codes.delete(code);
    if (expiresAt === undefined || expiresAt <= this.now()) return undefined;
    return this.openSession();
  }

  /** A session for someone who proved they hold the API token. */
  openSession(): string {
    this.sweep();
    const id = secret();
    this.sessions.set(id, this.now() + SESSION_TTL_MS);
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(oldest);
    }
    return id;
  }

  isValidSession(id: string): boolean {
    const expiresAt = this.sessions.get(id);
    return expiresAt !== undefined && expiresAt > this.now();
  }

  private sweep(): void {
    const now = this.now();
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
    for (const [id, expiresAt] of this.sessions) if (expiresAt <= now) this.sessions.delete(id);
  }
}

/**
 * Cookies are not port-scoped: two daemons on one host would overwrite each other's cookie, so the
 * name carries the port the browser used.
 */
export function sessionCookieName(request: Request): string {
  const url = new URL(request.url);
  return `goondan_studio_${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

export function sessionCookie(request: Request, sessionId: string): string {
  const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : '';
  return `${sessionCookieName(request)}=${sessionId}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_TTL_MS / 1000}${secure}`;
}

export function sessionIdOf(request: Request): string | undefined {
  const name = sessionCookieName(request);
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
