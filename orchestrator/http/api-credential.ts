/**
 * The daemon API's credential (issue: an agent must never be able to use the daemon's powers).
 * On start the daemon makes sure `<state-root>/runtime/api-token` holds a random token (mode 0600,
 * created once, shared by every daemon under that state root); `GOONDAN_API_TOKEN`, when set, is
 * accepted too. Compared in constant time; never logged.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { apiTokenPath } from '../../shared/state-paths.ts';
import { type StudioSessions, sessionIdOf } from '../studio/studio-sessions.ts';

const TOKEN_BYTES = 32;
/** The least a GOONDAN_API_TOKEN guarding a non-loopback port may be: guessable tokens are no guard. */
export const MIN_EXPOSED_TOKEN_CHARS = 16;

/** Why GOONDAN_API_TOKEN cannot guard the API on this host, or undefined when it can. */
export function envTokenProblem(token: string, loopback: boolean): string | undefined {
  // An Authorization header cannot carry it as it is (values are trimmed, and a space ends the token).
  if (/\s/.test(token)) return 'holds whitespace, which a bearer token cannot carry';
  if (!loopback && token.length < MIN_EXPOSED_TOKEN_CHARS) return `is ${token.length} characters long; a token guarding a non-loopback port needs at least ${MIN_EXPOSED_TOKEN_CHARS}`;
  return undefined;
}

/** Reads the state root's token, creating it (exclusively, 0600) when there is none. */
export function ensureApiToken(stateRoot: string): string {
  const path = apiTokenPath(stateRoot);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(TOKEN_BYTES).toString('hex')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
  // Whoever created it, it must not be readable by others.
  chmodSync(path, 0o600);
  return readFileSync(path, 'utf8').trim();
}

/** The token of a state root for clients (CLI, studio), if a daemon ever ran there. */
export function readApiToken(stateRoot: string): string | undefined {
  try {
    const token = readFileSync(apiTokenPath(stateRoot), 'utf8').trim();
    return token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}

/** How a request proved itself: a bearer token, or the studio's session cookie. */
export type CredentialKind = 'token' | 'session';

export class ApiCredentials {
  private readonly accepted: Buffer[];

  constructor(
    tokens: Array<string | undefined>,
    private readonly sessions?: StudioSessions,
  ) {
    this.accepted = tokens.filter((t): t is string => t !== undefined && t !== '').map((t) => Buffer.from(t));
  }

  /** True when the request carries `Authorization: Bearer <one of the accepted tokens>` or a studio session. */
  authorizes(request: Request): boolean {
    return this.credentialOf(request) !== undefined;
  }

  credentialOf(request: Request): CredentialKind | undefined {
    const header = request.headers.get('authorization') ?? '';
    if (this.acceptsToken(header.startsWith('Bearer ') ? header.slice(7).trim() : '')) return 'token';
    const session = this.sessions ? sessionIdOf(request) : undefined;
    if (session !== undefined && this.sessions?.isValidSession(session)) return 'session';
    return undefined;
  }

  acceptsToken(candidate: string): boolean {
    const given = Buffer.from(candidate);
    return this.accepted.some((token) => token.length === given.length && timingSafeEqual(token, given));
  }
}
