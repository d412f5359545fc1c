/**
 * What a command prints when the daemon answers with an error status, in one place: the code and
 * message of its error body (`{error: {code, message, suggestion?}}`, http-errors.ts), and for a
 * refused token where the CLI took it from (GOONDAN_API_TOKEN overrides the state root's file).
 */
import { isJsonObject } from '../../shared/types/json.ts';
import type { DaemonClient } from './daemon-client.ts';
import { type PrintedError, formatFailure, printedError } from './format-failure.ts';

export function formatDaemonFailure(prefix: string, client: DaemonClient, status: number, body: unknown, context?: string): string {
  const answered = printedError(isJsonObject(body) ? body.error : undefined);
  if (status === 401 || status === 403) return formatFailure(prefix, refusedToken(client, status, answered), `HTTP_${status}`, context);
  const error = answered ?? { code: `HTTP_${status}`, message: `the daemon at ${client.url} answered ${status} without an error body` };
  return formatFailure(prefix, error, `HTTP_${status}`, context);
}

function refusedToken(client: DaemonClient, status: number, answered: PrintedError | undefined): PrintedError {
  const { kind, file } = client.tokenOrigin;
  const code = answered?.code ?? `HTTP_${status}`;
  // A 401 says no more than "missing or wrong token"; a 403 may say why.
  const why = status === 403 && answered ? `: ${answered.message}` : '';
  if (kind === 'env') {
    return { code, message: `the daemon at ${client.url} refused the API token from GOONDAN_API_TOKEN${why}`, suggestion: `GOONDAN_API_TOKEN overrides ${file}: unset it, or set it to a token this daemon accepts` };
  }
  if (kind === 'file') {
    return { code, message: `the daemon at ${client.url} refused the API token in ${file}${why}`, suggestion: "is it another state root's daemon? Pass that --state-root, or set GOONDAN_API_TOKEN to its token" };
  }
  return {
    code,
    message: `the daemon at ${client.url} needs an API token and none was sent (GOONDAN_API_TOKEN is unset and ${file} does not exist)${why}`,
    suggestion: 'pass the --state-root the daemon was started with (its token is in <state-root>/runtime/api-token), or set GOONDAN_API_TOKEN',
  };
}
