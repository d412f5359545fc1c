import { describe, expect, test } from 'bun:test';
import { ApiCredentials } from '../../orchestrator/http/api-credential.ts';
import { LOGIN_CODE_TTL_MS, SESSION_TTL_MS, StudioSessions, sessionCookie, sessionIdOf } from '../../orchestrator/studio/studio-sessions.ts';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('studio login codes', () => {
  test('a code works once', () => {
    const sessions = new StudioSessions();
    const { code } = sessions.issueLoginCode();
    const session = sessions.redeemLoginCode(code);
    expect(session).toBeString();
    expect(sessions.isValidSession(session ?? '')).toBe(true);
    expect(sessions.redeemLoginCode(code)).toBeUndefined();
  });

  test('a code expires after two minutes; an unknown code is refused', () => {
    const time = clock();
    const sessions = new StudioSessions(time.now);
    const { code, expiresAt } = sessions.issueLoginCode();
    expect(Date.parse(expiresAt)).toBe(time.now() + LOGIN_CODE_TTL_MS);
    time.advance(LOGIN_CODE_TTL_MS);
    expect(sessions.redeemLoginCode(code)).toBeUndefined();
    expect(sessions.redeemLoginCode('guess')).toBeUndefined();
  });

  test('sessions end after their lifetime', () => {
    const time = clock();
    const sessions = new StudioSessions(time.now);
    const session = sessions.openSession();
    time.advance(SESSION_TTL_MS - 1);
    expect(sessions.isValidSession(session)).toBe(true);
    time.advance(1);
    expect(sessions.isValidSession(session)).toBe(false);
  });
});

describe('the session cookie', () => {
  const request = (cookie?: string, url = 'http://127.0.0.1:7420/v1/processes') => new Request(url, cookie ? { headers: { cookie } } : {});

  test('is HttpOnly, SameSite=Strict, for the whole API, and named after the port', () => {
    const cookie = sessionCookie(request(), 'abc');
    expect(cookie).toStartWith('goondan_studio_7420=abc;');
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
  });

  test('is read back among other cookies, and only under its own port', () => {
    expect(sessionIdOf(request('a=1; goondan_studio_7420=abc; b=2'))).toBe('abc');
    expect(sessionIdOf(request('goondan_studio_7421=abc'))).toBeUndefined();
  });

  test('authorizes like the bearer token, and says so', () => {
    const sessions = new StudioSessions();
    const credentials = new ApiCredentials(['secret'], sessions);
    const session = sessions.openSession();
    expect(credentials.credentialOf(request(`goondan_studio_7420=${session}`))).toBe('session');
    expect(credentials.credentialOf(new Request('http://127.0.0.1:7420/', { headers: { authorization: 'Bearer secret' } }))).toBe('token');
    expect(credentials.credentialOf(request('goondan_studio_7420=forged'))).toBeUndefined();
    expect(credentials.authorizes(request())).toBe(false);
  });
});
