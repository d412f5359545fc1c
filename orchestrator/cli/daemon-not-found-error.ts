/** No daemon to talk to (send, ps, restart, studio, instance delete): main prints the message and exits 1. */
export class DaemonNotFoundError extends Error {
  override name = 'DaemonNotFoundError';
}
