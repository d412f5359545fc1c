/**
 * How CLI commands talk to a running daemon: `GOONDAN_API_URL`, else the one live runtime file
 * under the state root; requests carry `GOONDAN_API_TOKEN`, else the state root's token file, as a
 * bearer token.
 */
import { liveDaemons } from '../daemon/runtime-file.ts';
import { readApiToken } from '../http/api-credential.ts';
import { DaemonNotFoundError } from './daemon-not-found-error.ts';

export { DaemonNotFoundError };

export interface DaemonClient {
  url: string;
  request(method: string, path: string, body?: unknown): Promise<Response>;
}

export function connectToDaemon(stateRoot: string, env: Record<string, string | undefined> = process.env): DaemonClient {
  let url = env.GOONDAN_API_URL;
  if (!url) {
    const daemons = liveDaemons(stateRoot);
    if (daemons.length === 0) {
      throw new DaemonNotFoundError(`no running goondan daemon under ${stateRoot}; start one with 'goondan run' (or set GOONDAN_API_URL)`);
    }
    if (daemons.length > 1) {
      const list = daemons.map((d) => `  ${d.swarm} (pid ${d.pid}) ${d.apiUrl}`).join('\n');
      throw new DaemonNotFoundError(`several daemons are running; set GOONDAN_API_URL to pick one:\n${list}`);
    }
    url = daemons[0]?.apiUrl ?? '';
  }
  const base = url.replace(/\/+$/, '');
  const token = env.GOONDAN_API_TOKEN ?? readApiToken(stateRoot);
  return {
    url: base,
    request(method, path, body) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    },
  };
}
