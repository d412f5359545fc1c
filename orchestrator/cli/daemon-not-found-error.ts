/**
 * No daemon runs under the state root (send, ps, restart, studio, instance delete): main prints
 * the message and exits 1. Several running daemons are a SeveralDaemonsError instead.
 */
export class DaemonNotFoundError extends Error {
  override name = 'DaemonNotFoundError';
}
