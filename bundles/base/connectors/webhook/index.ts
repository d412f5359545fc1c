/**
 * `webhook` connector: HTTP POST → one event. Body: JSON `{text | input, instanceKey?, properties?}`
 * or plain text. The body chooses the conversation, so a request must be signed with the
 * `WEBHOOK_SECRET` (also SIGNING_SECRET) setting, in a scheme the `signature` setting allows
 * (request-signature.ts); otherwise it is 401 and nothing is emitted (SPEC.md §6):
 * - `standard-webhooks`: `webhook-id`, `webhook-timestamp`, `webhook-signature`
 *   (https://www.standardwebhooks.com; a `whsec_<base64>` secret stands for those key bytes). A
 *   timestamp more than five minutes off is 401 E_WEBHOOK_TIMESTAMP, and the same id inside them
 *   runs no second turn: a captured request cannot be replayed;
 * - `hmac-sha256`: the legacy `sha256=<hex HMAC of the raw body>` in `X-Goondan-Signature` or
 *   `X-Hub-Signature-256`; it has no timestamp, so a captured request can be replayed under a new
 *   delivery id;
 * - `any` (default): either.
 * Without a secret the connector refuses to start unless `verify: false` says that unsigned
 * requests are meant (warned at start).
 * `?wait=true` (or `wait: true`) answers with the agent's reply instead of 202. A delivery id makes
 * a redelivery — the same id with the same body — run no second turn (with `wait`, it gets the
 * original reply): the signed `webhook-id` of a Standard Webhooks request; otherwise
 * `Idempotency-Key`, `webhook-id`, `X-GitHub-Delivery` or `X-Delivery-Id`, which are not signed and
 * so count only together with the body's digest.
 * Settings (config or secrets): `WEBHOOK_SECRET`, `signature` (any), `verify` (true), `host`
 * (127.0.0.1), `port` (8787), `path` (/), `instanceKey` (webhook), `wait`.
 */
import { createHash } from 'node:crypto';
import { readBoundedText } from '../../../../shared/http/bounded-body.ts';
import { validateInstanceKey } from '../../../../shared/instance-key.ts';
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from '../common/connector-error.ts';
import { flagSetting, numberSetting, setting } from '../common/connector-settings.ts';
import { MAX_BODY_BYTES, SERVER_MAX_REQUEST_BODY_SIZE } from '../common/webhook-server.ts';
import { type RequestVerifier, requestVerifier, signatureSchemeSetting } from './request-signature.ts';

/** Where providers put the id of a delivery (the same on their retries), in order of preference. */
const DELIVERY_ID_HEADERS = ['idempotency-key', 'webhook-id', 'x-github-delivery', 'x-delivery-id'];
const MAX_DELIVERY_ID_LENGTH = 256;
/** What the connector runtime accepts as an event's idempotency key (the HTTP API's limit too). */
const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

function json(status: number, body: Record<string, unknown>): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json' } });
}

interface WebhookPayload {
  text: string;
  instanceKey?: string;
  properties: Record<string, string>;
}

function parsePayload(raw: string, contentType: string): WebhookPayload | string {
  if (!contentType.includes('json')) return raw.trim() === '' ? 'empty body' : { text: raw, properties: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return `body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'body must be a JSON object';
  const text = 'text' in value ? value.text : 'input' in value ? value.input : undefined;
  if (typeof text !== 'string' || text.trim() === '') return '/text: required non-empty string (or /input)';
  const properties: Record<string, string> = {};
  const rawProperties = 'properties' in value ? value.properties : undefined;
  if (typeof rawProperties === 'object' && rawProperties !== null && !Array.isArray(rawProperties)) {
    for (const [key, v] of Object.entries(rawProperties)) if (v !== null && typeof v !== 'object') properties[key] = String(v);
  }
  const instanceKey = 'instanceKey' in value && typeof value.instanceKey === 'string' && value.instanceKey !== '' ? value.instanceKey : undefined;
  const keyProblem = instanceKey === undefined ? undefined : validateInstanceKey(instanceKey);
  if (keyProblem !== undefined) return `/instanceKey: ${keyProblem}`;
  return { text, properties, ...(instanceKey ? { instanceKey } : {}) };
}

function sha256Of(text: string): string {
  return `sha256-${createHash('sha256').update(text).digest('hex')}`;
}

/**
 * The delivery's key: its id with the body's digest. An id too long to fit beside the digest
 * (a signed webhook-id has no limit; an unsigned header may take up to 256 characters) stands in
 * by its own digest: still one key per id and body, within what the connector runtime accepts.
 */
function deliveryKey(id: string, rawBody: string): string {
  const body = sha256Of(rawBody);
  const idPart = id.length + 1 + body.length <= MAX_IDEMPOTENCY_KEY_LENGTH ? id : `id-${sha256Of(id)}`;
  return `${idPart}:${body}`;
}

/**
 * The key that makes a redelivery no second turn. A signed Standard Webhooks id wins over the
 * unsigned headers: else a replay inside the five minutes could pass under a new Idempotency-Key.
 * The unsigned delivery id headers count together with a digest of the (signed) body, so that a
 * captured id cannot be reused with another body to be answered with, or to suppress, the turn
 * of the real delivery. A redelivery — same id, same body — has the same key.
 */
function deliveryIdOf(headers: Headers, rawBody: string, signedId: string | undefined): { idempotencyKey: string } | Record<string, never> {
  if (signedId !== undefined) return { idempotencyKey: deliveryKey(signedId, rawBody) };
  for (const name of DELIVERY_ID_HEADERS) {
    const value = headers.get(name)?.trim();
    if (value && value.length <= MAX_DELIVERY_ID_LENGTH) return { idempotencyKey: deliveryKey(value, rawBody) };
  }
  return {};
}

export default async function webhook(ctx: ConnectorContext): Promise<void> {
  const secret = setting(ctx, ['WEBHOOK_SECRET', 'SIGNING_SECRET', 'signingSecret']) ?? '';
  const verify = flagSetting(ctx, ['verify'], true, 'webhook');
  if (secret === '' && verify) {
    throw new ConnectorError(
      'E_CONNECTOR_CONFIG',
      'webhook connector: no WEBHOOK_SECRET to verify requests; without it anyone who can reach the port could post into any conversation',
      'set secrets.WEBHOOK_SECRET (or config.WEBHOOK_SECRET; also read: SIGNING_SECRET) to the HMAC-SHA256 key senders sign the body with, or config.verify: false to accept unsigned requests',
    );
  }
  const scheme = signatureSchemeSetting(ctx);
  if (secret === '' && scheme !== 'any') {
    throw new ConnectorError('E_CONNECTOR_CONFIG', `webhook connector: signature: ${scheme} needs a WEBHOOK_SECRET to check it with`, 'set secrets.WEBHOOK_SECRET, or drop the signature setting if verify: false (unsigned requests) is really meant');
  }
  const verifier: RequestVerifier | undefined = secret === '' ? undefined : requestVerifier(secret, scheme);
  if (secret === '') ctx.logger.warn({ connector: 'webhook' }, 'webhook accepts UNSIGNED requests (verify: false): anyone who can reach the port can start turns in any conversation');
  const path = setting(ctx, ['path']) ?? '/';
  const defaultKey = setting(ctx, ['instanceKey']) ?? 'webhook';
  const waitAlways = flagSetting(ctx, ['wait'], false, 'webhook');
  const hostname = setting(ctx, ['host']) ?? '127.0.0.1';
  const port = numberSetting(ctx, ['port'], 8787, 'webhook', { min: 0, max: 65_535 });
  const server = Bun.serve({
    hostname,
    port,
    maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE,
    fetch: async (request) => {
      const url = new URL(request.url);
      if (url.pathname !== path) return json(404, { error: { code: 'E_WEBHOOK_NOT_FOUND', message: `POST to ${path}` } });
      if (request.method !== 'POST') return json(405, { error: { code: 'E_WEBHOOK_METHOD', message: 'use POST' } });
      // Read as a stream and dropped once past the limit: a chunked upload has no Content-Length.
      const body = await readBoundedText(request, MAX_BODY_BYTES);
      if (!body.ok) {
        return body.reason === 'too-large'
          ? json(413, { error: { code: 'E_WEBHOOK_TOO_LARGE', message: `body over ${MAX_BODY_BYTES} bytes` } })
          : json(400, { error: { code: 'E_WEBHOOK_BAD_BODY', message: 'the request body could not be read' } });
      }
      const raw = body.text;
      const signature = verifier?.(request.headers, raw) ?? { ok: true };
      if (!signature.ok) {
        ctx.logger.warn({ path, code: signature.code, reason: signature.message }, 'webhook signature check failed; request rejected');
        return json(401, { error: { code: signature.code, message: signature.message } });
      }
      const payload = parsePayload(raw, request.headers.get('content-type') ?? '');
      if (typeof payload === 'string') return json(400, { error: { code: 'E_WEBHOOK_BAD_BODY', message: payload } });
      const event = {
        name: 'webhook_message',
        message: { type: 'text' as const, text: payload.text },
        // What the connector knows wins over what the body says: ingress rules match on `path`.
        properties: { ...payload.properties, path: url.pathname },
        instanceKey: payload.instanceKey ?? defaultKey,
        ...deliveryIdOf(request.headers, raw, signature.signedId),
      };
      const wait = url.searchParams.get('wait') === 'true' || waitAlways;
      try {
        if (!wait) {
          await ctx.emit(event);
          return json(202, { accepted: true });
        }
        const reply = await ctx.request(event);
        return json(200, { status: reply.status, output: reply.text, traceId: reply.traceId ?? null, turnId: reply.turnId ?? null });
      } catch (error) {
        // A JSON answer the sender can log, not the server's HTML error page.
        ctx.logger.error({ error: error instanceof Error ? error.message : String(error) }, 'webhook request could not be passed on');
        return json(500, { error: { code: 'E_WEBHOOK_INTERNAL', message: 'the connector could not pass this request on; see the daemon log (goondan logs)' } });
      }
    },
  });
  ctx.logger.info({ url: `http://${server.hostname}:${server.port}${path}`, signed: secret !== '', signature: verifier === undefined ? 'none' : scheme }, 'webhook listening');
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.stop(true);
}
