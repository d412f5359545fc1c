/** No daemon to talk to (send, ps, logs, instance): main prints the message and exits 1. */
export class DaemonNotFoundError extends Error {
  override name = 'DaemonNotFoundError';
}
