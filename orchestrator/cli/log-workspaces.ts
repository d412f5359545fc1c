/**
 * Which workspaces `goondan logs` and `goondan instance list` read: that of the daemon the other commands talk to
 * (GOONDAN_API_URL's, else the only one running under the state root), or, when none is selected
 * (no daemon, or several and no GOONDAN_API_URL), every workspace under the state root.
 */
import { join } from 'node:path';
import { namesIn } from '../../shared/dir-names.ts';
import { liveDaemons } from '../daemon/runtime-file.ts';
import { DaemonNotFoundError } from './daemon-not-found-error.ts';
import { isLoopbackHost } from './doctor/doctor-check.ts';

/** The selected daemon's workspace id, or undefined when no daemon is selected; `reader` names the command in an error. */
export function selectedWorkspace(stateRoot: string, env: Record<string, string | undefined> = process.env, reader = 'logs'): string | undefined {
  const live = liveDaemons(stateRoot);
  const apiUrl = env.GOONDAN_API_URL;
  if (!apiUrl) return live.length === 1 ? live[0]?.workspaceId : undefined;
  const daemon = live.find((d) => sameAddress(d.apiUrl, apiUrl));
  if (daemon === undefined) {
    throw new DaemonNotFoundError(`GOONDAN_API_URL ${apiUrl} is no daemon running under ${stateRoot}, and ${reader} reads its state there: pass that daemon's --state-root, or unset GOONDAN_API_URL`);
  }
  return daemon.workspaceId;
}

/** The selected daemon's workspace, else every workspace under the state root. */
export function workspacesToShow(stateRoot: string, reader: string, env: Record<string, string | undefined> = process.env): string[] {
  const selected = selectedWorkspace(stateRoot, env, reader);
  return selected !== undefined ? [selected] : allWorkspaces(stateRoot);
}

export function allWorkspaces(stateRoot: string): string[] {
  return namesIn(join(stateRoot, 'workspaces')).sort();
}

/** Same scheme and port, and the same host (every loopback name is one host). */
function sameAddress(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const [x, y] = [new URL(a), new URL(b)];
  const sameHost = x.hostname === y.hostname || (isLoopbackHost(x.hostname) && isLoopbackHost(y.hostname));
  return x.protocol === y.protocol && x.port === y.port && sameHost;
}
