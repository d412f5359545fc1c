/**
 * Cluster mode (issue 15): before a tool handler may act on the world, the orchestrator stores
 * this instance's state (conversation, tool-call journal) in the cluster, so whichever node resumes
 * the instance after a crash finds the `started` record and does not run the call again.
 */
import { GoondanError } from '../../shared/errors/index.ts';
import { type ControlChannel, requestControl } from '../../shared/child/control-request.ts';

/** Generous: a NATS reconnect may hold the write; failing would fail the tool call. */
const SYNC_TIMEOUT_MS = 60_000;

export function ipcStateSync(control: ControlChannel): () => Promise<void> {
  return async () => {
    const answer = await requestControl(control, 'runtime.state.sync', {}, SYNC_TIMEOUT_MS);
    if (!answer.ok) throw GoondanError.fromJSON(answer.error);
  };
}
