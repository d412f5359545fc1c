/**
 * How CLI commands talk to a running daemon: `GOONDAN_API_URL`, else the one live runtime file
 * under the state root; requests carry `GOONDAN_API_TOKEN`, else the state root's token file, as a
 * bearer token. Where each came from is kept, so that a failure can say what to fix.
 */
import { liveDaemons } from '../daemon/runtime-file.ts';
import { readApiToken } from '../http/api-credential.ts';
import { apiTokenPath, runtimeFilePath } from '../../shared/state-paths.ts';
import { DaemonNotFoundError } from './daemon-not-found-error.ts';
import { DaemonUnreachableError } from './daemon-unreachable-error.ts';
import { SeveralDaemonsError } from './several-daemons-error.ts';
import { type AnswerKind, quickAnswerMs, watchAnswer } from './answer-watch.ts';

export { DaemonNotFoundError, DaemonUnreachableError, SeveralDaemonsError, quickAnswerMs };

/** Where the URL came from: the variable, or the runtime file a daemon wrote (and its pid). */
export type UrlOrigin = { kind: 'env' } | { kind: 'runtime-file'; file: string; pid: number };

/** Where the bearer token came from; `file` is the state root's token file (GOONDAN_API_TOKEN overrides it). */
export interface TokenOrigin {
  kind: 'env' | 'file' | 'none';
  file: string;
}

export interface RequestOptions {
  /**
   * When the daemon answers: `at-once` (default), so its answer must begin within `answerWithinMs`;
   * `after-work` (a waited reply, a drain), so instead its GET /healthz must keep answering within it.
   */
  answers?: AnswerKind;
  /** Default GOONDAN_CLI_ANSWER_TIMEOUT_MS (30 s). */
  answerWithinMs?: number;
  /** What set `answerWithinMs`, as a failure names it (default GOONDAN_CLI_ANSWER_TIMEOUT_MS). */
  answerLimit?: string;
  /** What a hung daemon leaves unknown, added to its message (e.g. whether an event was accepted). */
  ifHung?: string;
  /** Aborts the request and its body (a whole-call deadline); the request then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface DaemonClient {
  url: string;
  urlOrigin: UrlOrigin;
  tokenOrigin: TokenOrigin;
  /**
   * Resolves once the answer's headers arrive. Rejects with DaemonUnreachableError when nothing
   * answers at `url`, or when the daemon does not answer in time (see RequestOptions): a hung daemon
   * must not hang the command too.
   */
  request(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<Response>;
}

export function connectToDaemon(stateRoot: string, env: Record<string, string | undefined> = process.env): DaemonClient {
  const { url, urlOrigin } = findDaemonUrl(stateRoot, env);
  const base = url.replace(/\/+$/, '');
  if (!URL.canParse(base)) throw new DaemonUnreachableError(`the daemon URL '${url}' ${describeOrigin(urlOrigin)} is not a valid URL; ${invalidUrlAdvice(urlOrigin)}`);
  // Empty is unset, as for the daemon (goondan run).
  const envToken = env.GOONDAN_API_TOKEN || undefined;
  const fileToken = readApiToken(stateRoot);
  const token = envToken ?? fileToken;
  const tokenOrigin: TokenOrigin = { kind: envToken !== undefined ? 'env' : fileToken !== undefined ? 'file' : 'none', file: apiTokenPath(stateRoot) };
  return {
    url: base,
    urlOrigin,
    tokenOrigin,
    async request(method, path, body, options = {}) {
      const headers: Record<string, string> = {};
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const { answers = 'at-once', answerWithinMs = quickAnswerMs(env), answerLimit = 'GOONDAN_CLI_ANSWER_TIMEOUT_MS', signal } = options;
      const unanswered = new AbortController();
      const stopWatch = watchAnswer(base, answers, answerWithinMs, () => unanswered.abort());
      try {
        return await fetch(`${base}${path}`, {
          method,
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: signal ? AbortSignal.any([unanswered.signal, signal]) : unanswered.signal,
        });
      } catch (error) {
        if (unanswered.signal.aborted) {
          const what =
            answers === 'at-once'
              ? `did not answer ${method} ${path} within ${answerWithinMs} ms`
              : `stopped answering while ${method} ${path} waited: GET /healthz got no answer within ${answerWithinMs} ms`;
          const unknown = options.ifHung ? `; ${options.ifHung}` : '';
          throw new DaemonUnreachableError(
            `the goondan daemon at ${base} ${what} (${answerLimit}; URL ${describeOrigin(urlOrigin)}): is it hung or overloaded? See its log; 'kill -TERM' drains it${unknown}`,
          );
        }
        if (signal?.aborted) throw signal.reason;
        throw new DaemonUnreachableError(`the goondan daemon at ${base} is not reachable (${connectFailure(error)}; URL ${describeOrigin(urlOrigin)}): ${unreachableAdvice(urlOrigin)}`);
      } finally {
        stopWatch();
      }
    },
  };
}

function findDaemonUrl(stateRoot: string, env: Record<string, string | undefined>): { url: string; urlOrigin: UrlOrigin } {
  if (env.GOONDAN_API_URL) return { url: env.GOONDAN_API_URL, urlOrigin: { kind: 'env' } };
  const daemons = liveDaemons(stateRoot);
  const [daemon] = daemons;
  if (daemon === undefined) {
    throw new DaemonNotFoundError(`no running goondan daemon under ${stateRoot}; start one with 'goondan run' (or set GOONDAN_API_URL)`);
  }
  if (daemons.length > 1) {
    const list = daemons.map((d) => `  ${d.swarm} (pid ${d.pid}) ${d.apiUrl}`).join('\n');
    throw new SeveralDaemonsError(`several daemons are running; set GOONDAN_API_URL to pick one:\n${list}`);
  }
  return { url: daemon.apiUrl, urlOrigin: { kind: 'runtime-file', file: runtimeFilePath(stateRoot, daemon.workspaceId), pid: daemon.pid } };
}

/** `from GOONDAN_API_URL`, or `from <runtime file>`. */
export function describeOrigin(origin: UrlOrigin): string {
  return origin.kind === 'env' ? 'from GOONDAN_API_URL' : `from ${origin.file}`;
}

function invalidUrlAdvice(origin: UrlOrigin): string {
  return origin.kind === 'env'
    ? 'correct GOONDAN_API_URL (e.g. http://127.0.0.1:7420) or unset it'
    : `restart the daemon (pid ${origin.pid}) with 'goondan run', which rewrites that file`;
}

function unreachableAdvice(origin: UrlOrigin): string {
  return origin.kind === 'env'
    ? "is a daemon running there? Start one with 'goondan run', or correct or unset GOONDAN_API_URL"
    : `is the daemon (pid ${origin.pid}) still running? If it was killed, that runtime file is stale: delete it and start the daemon again with 'goondan run'`;
}

/** "connection refused" rather than Bun's "ECONNREFUSED: Unable to connect. Is the computer able to access the url?". */
function connectFailure(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code === 'ECONNREFUSED' || code === 'ConnectionRefused') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  return error instanceof Error ? error.message : String(error);
}
