/**
 * The HTTP endpoint of a webhook-style connector (Telegram webhook, Slack Events API, Discord
 * interactions, GitHub): listens on `host` (127.0.0.1) : `port` at `path`, accepts POST bodies up
 * to 1 MB, hands the raw body to the connector (signatures are computed over the raw bytes) and
 * stops when the connection shuts down. A handler that throws is a 500, never a crash. The body is
 * read as a stream and dropped once past the limit (413): a chunked upload has no Content-Length
 * to check first, and buffering it whole let a few large uploads take the process to gigabytes.
 */
import { readBoundedText } from '../../../../shared/http/bounded-body.ts';
import type { ConnectorContext } from '../../../../shared/types/index.ts';
import { ConnectorError } from './connector-error.ts';
import { numberSetting, setting } from './connector-settings.ts';
import { isRecord, type JsonRecord } from './payload-fields.ts';

export const MAX_BODY_BYTES = 1_000_000;
/** Bun's own cap, above ours so that a body just over the limit still gets our 413 answer. */
export const SERVER_MAX_REQUEST_BODY_SIZE = 2 * MAX_BODY_BYTES;

export interface WebhookEndpoint {
  /** The connector's name, for logs and errors. */
  connector: string;
  defaultPort: number;
  /** Extra setting names read for the port / path (upstream bundles use e.g. `SLACK_WEBHOOK_PORT`). */
  portNames?: readonly string[];
  pathNames?: readonly string[];
  handle(request: Request, rawBody: string): Promise<Response>;
}

export function jsonResponse(status: number, body: unknown): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json' } });
}

export function errorResponse(status: number, code: string, message: string): Response {
  return jsonResponse(status, { error: { code, message } });
}

function normalizePath(path: string): string {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}

/** Serves until `ctx.signal` aborts. */
export async function serveWebhook(ctx: ConnectorContext, endpoint: WebhookEndpoint): Promise<void> {
  const { connector } = endpoint;
  const port = numberSetting(ctx, ['port', ...(endpoint.portNames ?? [])], endpoint.defaultPort, connector, { min: 0, max: 65_535 });
  const path = normalizePath(setting(ctx, ['path', ...(endpoint.pathNames ?? [])]) ?? '/');
  const hostname = setting(ctx, ['host']) ?? '127.0.0.1';
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname,
      port,
      maxRequestBodySize: SERVER_MAX_REQUEST_BODY_SIZE,
      fetch: async (request) => {
        const url = new URL(request.url);
        if (normalizePath(url.pathname) !== path) return errorResponse(404, 'E_CONNECTOR_NOT_FOUND', `${connector} listens at POST ${path}`);
        if (request.method !== 'POST') return errorResponse(405, 'E_CONNECTOR_METHOD', 'use POST');
        const body = await readBoundedText(request, MAX_BODY_BYTES);
        if (!body.ok) {
          return body.reason === 'too-large'
            ? errorResponse(413, 'E_CONNECTOR_TOO_LARGE', `body over ${MAX_BODY_BYTES} bytes`)
            : errorResponse(400, 'E_CONNECTOR_BAD_BODY', 'the request body could not be read');
        }
        const rawBody = body.text;
        try {
          return await endpoint.handle(request, rawBody);
        } catch (error) {
          ctx.logger.error({ error: error instanceof Error ? error.message : String(error) }, `${connector} request failed`);
          return errorResponse(500, 'E_CONNECTOR_INTERNAL', 'the connector could not handle this request');
        }
      },
    });
  } catch (error) {
    throw new ConnectorError('E_CONNECTOR_LISTEN', `${connector} connector cannot listen on ${hostname}:${port}: ${error instanceof Error ? error.message : String(error)}`, 'pick a free port (config.port)');
  }
  ctx.logger.info({ connector, url: `http://${server.hostname}:${server.port}${path}` }, `${connector} listening`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.stop(true);
}

/** Parses a JSON object body, or answers 400. */
export function parseJsonObject(rawBody: string): JsonRecord | Response {
  let value: unknown;
  try {
    value = JSON.parse(rawBody);
  } catch (error) {
    return errorResponse(400, 'E_CONNECTOR_BAD_BODY', `body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return isRecord(value) ? value : errorResponse(400, 'E_CONNECTOR_BAD_BODY', 'body must be a JSON object');
}
