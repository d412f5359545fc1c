/**
 * Replies as issue / pull-request comments: `POST /repos/{owner}/{repo}/issues/{number}/comments`
 * (pull requests are issues to this endpoint) with the token as a Bearer credential. GitHub's
 * rate limits answer 429, or 403 with `retry-after` / `x-ratelimit-remaining: 0`; both are
 * retried, waiting until `x-ratelimit-reset` when that is all GitHub says.
 */
import type { Logger } from '../../../../shared/types/index.ts';
import { type Interpret, interpretHttpStatus, requestWithRetry } from '../common/provider-request.ts';
import type { RetryPolicy } from '../common/retry-policy.ts';

export const GITHUB_API_BASE_URL = 'https://api.github.com';
/** GitHub's limit for a comment body. */
export const GITHUB_COMMENT_LIMIT = 65_536;

export const interpretGithub: Interpret = (status, body, headers) => {
  const outcome = interpretHttpStatus(status, body, headers);
  if (outcome.kind === 'ok' || status !== 403) return outcome;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (outcome.retryAfterMs !== undefined) return { ...outcome, retryable: true };
  if (headers.get('x-ratelimit-remaining') === '0' && Number.isFinite(reset)) return { ...outcome, retryable: true, retryAfterMs: Math.max(0, reset * 1000 - Date.now()) };
  return outcome;
};

export interface GithubApiOptions {
  baseUrl: string;
  token: string;
  policy: RetryPolicy;
  logger: Logger;
  signal: AbortSignal;
}

export function createGithubApi(options: GithubApiOptions) {
  return {
    async createComment(repo: string, number: string, body: string): Promise<void> {
      const [owner = '', name = ''] = repo.split('/');
      await requestWithRetry(
        {
          label: `github comment on ${repo}#${number}`,
          method: 'POST',
          url: `${options.baseUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/issues/${encodeURIComponent(number)}/comments`,
          headers: { authorization: `Bearer ${options.token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'goondan' },
          body: { body },
        },
        { signal: options.signal, secrets: [options.token], interpret: interpretGithub, policy: options.policy, logger: options.logger },
      );
    },
  };
}
