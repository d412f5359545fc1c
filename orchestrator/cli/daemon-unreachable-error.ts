/**
 * The daemon's URL is known but nothing answers there, or it is no URL: main prints the message
 * and exits 1, like DaemonNotFoundError. Its own class: `instance delete` falls back to deleting
 * state directly only when no daemon runs, never when one may run but does not answer.
 */
export class DaemonUnreachableError extends Error {
  override name = 'DaemonUnreachableError';
}
