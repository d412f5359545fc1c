/**
 * A core NATS responder for other nodes' requests: each request body is checked against its schema
 * before `handle` sees it; a malformed one is logged and left unanswered (the asker times out).
 */
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RootLogger } from '../../shared/logger.ts';
import { messageJson } from './kv-json.ts';

export function serveRequests<T>(nc: NatsConnection, subject: string, accepts: (value: unknown) => value is T, logger: RootLogger, handle: (request: T, msg: Msg) => void): Subscription {
  return nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return;
      const request = messageJson(msg);
      if (accepts(request)) handle(request, msg);
      else logger.warn({ subject }, 'dropped a malformed request from another node');
    },
  });
}
