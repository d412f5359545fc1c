/**
 * The node's one NATS connection: credentials from the URL or a creds file, TLS for `tls://`,
 * reconnecting forever (a NATS restart must not stop the daemon), and a `connected` flag for
 * /readyz. Refuses servers older than 2.9 or without JetStream, saying what to do.
 */
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { GoondanError } from '../../shared/errors/index.ts';
import type { RootLogger } from '../../shared/logger.ts';
import { type ClusterOptions, redactUrl } from './cluster-options.ts';

const MIN_SERVER = [2, 9, 0] as const;

export interface NatsLink {
  nc: NatsConnection;
  connected(): boolean;
  /** How long the connection has been down (0 while connected). */
  downForMs(): number;
  /** Called after each reconnect. */
  onReconnect(listener: () => void): void;
}

export async function openNatsLink(options: ClusterOptions, logger: RootLogger): Promise<NatsLink> {
  const url = new URL(options.url);
  const auth: { user?: string; pass?: string; token?: string } = {};
  if (url.password !== '') Object.assign(auth, { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) });
  else if (url.username !== '') auth.token = decodeURIComponent(url.username);
  const server = `${url.protocol === 'tls:' ? 'tls' : 'nats'}://${url.host}`;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: server,
      name: `goondan/${options.nodeId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...auth,
      ...(url.protocol === 'tls:' ? { tls: {} } : {}),
      ...(options.credsFile ? { authenticator: credsAuthenticator(readFileSync(options.credsFile)) } : {}),
    });
  } catch (error) {
    throw new GoondanError('CLUSTER_UNAVAILABLE', 'system', `cannot connect to NATS at ${redactUrl(options.url)}: ${(error as Error).message}`, {
      suggestion: 'start nats-server with JetStream (`nats-server -js -sd DIR`) and check the URL and credentials (--cluster, --cluster-creds)',
    });
  }
  const info = nc.info;
  if (!info || !atLeast(info.version, MIN_SERVER) || info.jetstream !== true) {
    await nc.close();
    const found = info ? `${info.version}${info.jetstream ? '' : ' without JetStream'}` : 'an unknown server';
    throw new GoondanError('CLUSTER_UNAVAILABLE', 'system', `NATS at ${redactUrl(options.url)} is ${found}; cluster mode needs NATS ${MIN_SERVER.join('.')} or newer with JetStream`, {
      suggestion: 'start the server with -js (JetStream) and a store directory (-sd DIR)',
    });
  }
  let connected = true;
  let downSince = 0;
  const reconnectListeners: Array<() => void> = [];
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        connected = false;
        downSince = Date.now();
        logger.warn({ server: redactUrl(options.url) }, 'disconnected from NATS; reconnecting');
      } else if (status.type === 'reconnect') {
        connected = true;
        logger.info({ server: redactUrl(options.url) }, 'reconnected to NATS');
        for (const listener of reconnectListeners) listener();
      }
    }
  })();
  logger.info({ server: redactUrl(options.url), version: info.version, node: options.nodeId }, 'connected to NATS');
  return {
    nc,
    connected: () => connected && !nc.isClosed(),
    downForMs: () => (connected ? 0 : Date.now() - downSince),
    onReconnect: (listener) => reconnectListeners.push(listener),
  };
}

function atLeast(version: string, min: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10));
  for (let i = 0; i < min.length; i++) {
    const have = parts[i] ?? 0;
    const want = min[i] ?? 0;
    if (have !== want) return have > want;
  }
  return true;
}
