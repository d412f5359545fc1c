/**
 * Runs a built-in connector in this process against real HTTP: a fake ConnectorContext records
 * what it emits (and answers requests at once), the listening URL is read from the connector's
 * own "listening" log line, and `stop()` aborts the connection and waits for the connector.
 */
import { connect } from 'node:net';
import type { ConnectorContext, ConnectorEntry, ConnectorEvent } from '../../shared/types/index.ts';
import { ConnectorError } from '../../bundles/base/connectors/common/connector-error.ts';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  msg: string;
}

export interface RunningConnector {
  url: string;
  events: ConnectorEvent[];
  logs: LogLine[];
  stop(): Promise<void>;
}

export type StartResult = { started: RunningConnector } | { error: { code: string; message: string } };

/** `failing`: emit and request reject, as when the daemon refuses the event. */
export async function startConnector(entry: ConnectorEntry, config: Record<string, string>, secrets: Record<string, string> = {}, failing = false): Promise<StartResult> {
  const events: ConnectorEvent[] = [];
  const logs: LogLine[] = [];
  const controller = new AbortController();
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const log = (level: LogLine['level']) => (fields: Record<string, unknown>, msg: string) => {
    logs.push({ level, fields, msg });
    if (level === 'info' && typeof fields.url === 'string') listening(fields.url);
  };
  const ctx: ConnectorContext = {
    config,
    secrets,
    emit: async (event) => {
      if (failing) throw new Error('the daemon refused the event');
      events.push(event);
    },
    request: async (event) => {
      if (failing) throw new Error('the daemon refused the event');
      events.push(event);
      return { status: 'ok', text: `got: ${event.message.type === 'text' ? event.message.text : ''}` };
    },
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as unknown as ConnectorContext['logger'],
    signal: controller.signal,
    onApproval() {},
  };
  const running = entry(ctx);
  const outcome = await Promise.race([url.then((u) => ({ url: u })), running.then(() => ({ ended: true as const }), (error: unknown) => ({ error }))]);
  if ('error' in outcome) {
    const { error } = outcome;
    return { error: ConnectorError.isInstance(error) ? { code: error.code, message: error.message } : { code: 'not a ConnectorError', message: String(error) } };
  }
  if ('ended' in outcome) return { error: { code: 'ended', message: 'the connector returned without listening' } };
  return {
    started: {
      url: outcome.url,
      events,
      logs,
      async stop() {
        controller.abort();
        await running;
      },
    },
  };
}

export function started(result: StartResult): RunningConnector {
  if ('error' in result) throw new Error(`connector did not start: ${result.error.code} ${result.error.message}`);
  return result.started;
}

/**
 * POSTs a chunked body (no Content-Length) over a raw socket: `bytes` of it, then the upload
 * stays open without its last chunk. Resolves with the status line's code once the server
 * answers, or 0 when it has not answered within `timeoutMs` (it is still reading).
 */
export function postEndlessChunked(url: string, bytes: number, timeoutMs: number): Promise<number> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    const finish = (code: number) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => finish(0), timeoutMs);
    socket.on('error', () => finish(answer.startsWith('HTTP/') ? Number(answer.split(' ')[1]) : -1));
    socket.on('data', (data) => {
      answer += data.toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (match) finish(Number(match[1]));
    });
    socket.on('connect', () => {
      socket.write(`POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}
