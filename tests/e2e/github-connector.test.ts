/**
 * The `github` connector (webhook) against a fake GitHub REST API, through the real daemon:
 * X-Hub-Signature-256, ping, issue comments / opened issues / opened pull requests as turns on
 * `github:<owner/repo>#<number>` with their properties, replies as issue comments with the
 * token, the bot's own comments and redeliveries not emitted, 5xx retried.
 */
import { describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import type { RecordedCall } from './fake-chat-providers.ts';
import { chatRig, expectNoCredentialLogged, githubSignature, instanceExists } from './chat-connectors-harness.ts';

const rig = chatRig();

function deliver(event: string, body: unknown, options: { deliveryId?: string; secret?: string; form?: boolean } = {}): Promise<Response> {
  const text = options.form ? new URLSearchParams({ payload: JSON.stringify(body) }).toString() : JSON.stringify(body);
  return fetch(rig().urls.github, {
    method: 'POST',
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.deliveryId ?? randomUUID(),
      'x-hub-signature-256': githubSignature(options.secret ?? rig().credentials.githubSecret, text),
    },
    body: text,
  });
}

const repository = { full_name: 'acme/widgets', name: 'widgets', owner: { login: 'acme' } };

function comment(number: number, body: string, author = 'carol'): Record<string, unknown> {
  return {
    action: 'created',
    repository,
    sender: { login: author },
    issue: { number, title: `Issue ${number}`, html_url: `https://github.com/acme/widgets/issues/${number}`, user: { login: 'dave' } },
    comment: { id: 5000 + number, body, user: { login: author }, html_url: `https://github.com/acme/widgets/issues/${number}#issuecomment-${5000 + number}` },
  };
}

const commentedOn = (number: number) => (call: RecordedCall) => call.method === 'POST' && call.path === `/github/repos/acme/widgets/issues/${number}/comments`;

describe('github: deliveries', () => {
  test('ping is answered 200; a wrong signature is 401 and nothing is emitted', async () => {
    const { fake } = rig();
    expect((await deliver('ping', { zen: 'Keep it logically awesome.', hook_id: 1 })).status).toBe(200);
    expect((await deliver('issue_comment', comment(66, 'forged'), { secret: 'wrong-secret' })).status).toBe(401);
    await deliver('issue_comment', comment(67, 'barrier'));
    await fake.waitForDelivered(commentedOn(67), 'the barrier comment');
    expect(instanceExists(rig(), 'desk', 'github:acme/widgets#66')).toBe(false);
    expect(fake.calls.some(commentedOn(66))).toBe(false);
  });

  test('a new issue comment is a turn on github:<owner/repo>#<number>; the reply is a comment there, with the token', async () => {
    const { fake, credentials } = rig();
    const deliveryId = randomUUID();
    expect((await deliver('issue_comment', comment(7, 'Can you look at this?'), { deliveryId })).status).toBe(200);
    const [reply] = await fake.waitForDelivered(commentedOn(7), 'the reply comment on #7');
    expect(reply?.headers.authorization).toBe(`Bearer ${credentials.githubToken}`);
    const body = String(reply?.body.body);
    expect(body).toStartWith('desk got: Can you look at this?');
    expect(body).toContain('instanceKey: github:acme/widgets#7');
    expect(body).toContain('properties.repo: acme/widgets');
    expect(body).toContain('properties.number: 7');
    expect(body).toContain('properties.sender: carol');
    expect(body).toContain('properties.comment_id: 5007');
    expect(body).toContain(`properties.delivery_id: ${deliveryId}`);
  });

  test('an opened issue and an opened pull request (form-encoded delivery) are turns; other actions are not', async () => {
    const { fake } = rig();
    await deliver('issues', { action: 'opened', repository, sender: { login: 'erin' }, issue: { number: 8, title: 'Broken build', body: 'It fails.', user: { login: 'erin' } } }, { form: true });
    await deliver('pull_request', { action: 'opened', repository, sender: { login: 'finn' }, pull_request: { number: 9, title: 'Fix build', body: 'Fixes #8', user: { login: 'finn' } } });
    const closed = await deliver('issues', { action: 'closed', repository, sender: { login: 'erin' }, issue: { number: 10, title: 'Done', user: { login: 'erin' } } });
    expect(await closed.json()).toMatchObject({ ok: true, ignored: 'issues.closed is not handled' });
    const [issue] = await fake.waitForDelivered(commentedOn(8), 'the reply on issue #8');
    const [pull] = await fake.waitForDelivered(commentedOn(9), 'the reply on pull request #9');
    expect(String(issue?.body.body)).toStartWith('desk got: Broken build\n\nIt fails.');
    expect(String(issue?.body.body)).toContain('eventType: connector.github_issue');
    expect(String(pull?.body.body)).toContain('eventType: connector.github_pull_request');
  });

  test("the bot's own comments and a redelivered delivery id are not emitted again", async () => {
    const { fake } = rig();
    const deliveryId = randomUUID();
    await deliver('issue_comment', comment(11, 'first time'), { deliveryId });
    await deliver('issue_comment', comment(11, 'first time'), { deliveryId });
    const own = await deliver('issue_comment', comment(11, 'desk got: something', 'goondan-bot'));
    expect(await own.json()).toMatchObject({ ok: true, ignored: 'written by the bot itself (goondan-bot)' });
    await fake.waitForDelivered(commentedOn(11), 'the reply on #11');
    await deliver('issue_comment', comment(12, 'barrier'));
    await fake.waitForDelivered(commentedOn(12), 'the barrier reply');
    expect(fake.delivered(commentedOn(11)).length).toBe(1);
  });

  test('a comment failing with 502 and 503 is retried until it is posted, once', async () => {
    const { fake } = rig();
    fake.failNext('/issues/13/comments', [{ status: 502, body: { message: 'Bad Gateway' } }, { status: 503, body: { message: 'Unavailable' } }]);
    await deliver('issue_comment', comment(13, 'retry please'));
    await fake.waitForDelivered(commentedOn(13), 'the comment after two failures');
    expect(fake.calls.filter(commentedOn(13)).map((c) => c.status)).toEqual([502, 503, 201]);
  });

  test('no token or secret appears in any log line', () => {
    expectNoCredentialLogged(rig());
  });
});
