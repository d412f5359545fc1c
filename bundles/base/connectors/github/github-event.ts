/**
 * A GitHub webhook delivery → an event: `github_issue_comment` (a new comment on an issue or a
 * pull request), `github_issue` (an issue opened), `github_pull_request` (a pull request
 * opened); other events and actions are not turns. Comments written by the bot itself
 * (`botLogin`) are dropped so that its own replies do not start new turns. Properties: `repo`
 * (owner/name), `number`, `action`, `sender`, `comment_id`, `url`, `title`, `delivery_id`,
 * `github_event`; the conversation key is `github:<owner/repo>#<number>`.
 *
 * `X-GitHub-Event` and `X-GitHub-Delivery` are not covered by the signature, only the body is: a
 * handled event's body must have that event's shape (a comment and its issue; an issue; a pull
 * request), and what identifies the event for redeliveries (`key`) is taken from the body — the
 * comment id, or the repository and number of what was opened — so a captured delivery posted
 * again under a new delivery id is still recognised.
 */
import { createHash } from 'node:crypto';
import type { ConnectorEvent } from '../../../../shared/types/index.ts';
import { definedProperties, idAt, recordAt, textAt, type JsonRecord } from '../common/payload-fields.ts';

export type GithubDelivery =
  | { kind: 'event'; event: ConnectorEvent; repo: string; number: string; key: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'mismatch'; reason: string };

const HANDLED: Record<string, { action: string; name: string; subject: 'issue' | 'pull_request'; has: readonly string[]; lacks: readonly string[] }> = {
  issue_comment: { action: 'created', name: 'github_issue_comment', subject: 'issue', has: ['comment', 'issue'], lacks: [] },
  issues: { action: 'opened', name: 'github_issue', subject: 'issue', has: ['issue'], lacks: ['comment', 'pull_request'] },
  pull_request: { action: 'opened', name: 'github_pull_request', subject: 'pull_request', has: ['pull_request'], lacks: ['comment', 'issue'] },
};

export function githubDelivery(githubEvent: string, deliveryId: string | undefined, body: JsonRecord, botLogin: string | undefined): GithubDelivery {
  const handled = HANDLED[githubEvent];
  const action = textAt(body, 'action');
  if (handled) {
    const missing = handled.has.filter((field) => recordAt(body, field) === undefined);
    const extra = handled.lacks.filter((field) => field in body);
    if (missing.length > 0 || extra.length > 0) {
      return { kind: 'mismatch', reason: `X-GitHub-Event ${githubEvent} does not match the signed body (${[...missing.map((f) => `no ${f}`), ...extra.map((f) => `has ${f}`)].join(', ')})` };
    }
  }
  if (!handled || action !== handled.action) return { kind: 'ignored', reason: `${githubEvent}${action ? `.${action}` : ''} is not handled` };
  const subject = recordAt(body, handled.subject);
  const comment = githubEvent === 'issue_comment' ? recordAt(body, 'comment') : undefined;
  const author = textAt(recordAt(comment ?? subject, 'user'), 'login');
  if (botLogin !== undefined && author !== undefined && author.toLowerCase() === botLogin.toLowerCase()) return { kind: 'ignored', reason: `written by the bot itself (${author})` };
  const repo = textAt(recordAt(body, 'repository'), 'full_name');
  const number = idAt(subject, 'number');
  if (repo === undefined || number === undefined) return { kind: 'ignored', reason: 'no repository or issue number' };
  const title = textAt(subject, 'title');
  const commentId = idAt(comment, 'id');
  // From the signed body: one comment is created once, one issue / pull request is opened once.
  const key = `${githubEvent}.${action}:${comment ? (commentId ?? `sha256-${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`) : `${repo}#${number}`}`;
  const text = comment ? (textAt(comment, 'body') ?? '') : [title, textAt(subject, 'body')].filter((part) => part !== undefined).join('\n\n');
  return {
    kind: 'event',
    repo,
    number,
    key,
    event: {
      name: handled.name,
      message: { type: 'text', text },
      instanceKey: `github:${repo}#${number}`,
      // A redelivery after a restart (the in-memory duplicate check is gone) runs no second turn.
      idempotencyKey: key,
      properties: definedProperties({
        github_event: githubEvent,
        repo,
        number,
        action,
        sender: textAt(recordAt(body, 'sender'), 'login'),
        comment_id: commentId,
        url: textAt(comment ?? subject, 'html_url'),
        title,
        delivery_id: deliveryId,
      }),
    },
  };
}
