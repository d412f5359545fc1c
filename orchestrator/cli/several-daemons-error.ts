/**
 * Several daemons run under the state root and GOONDAN_API_URL picks none: main prints the message
 * and exits 1. Not a DaemonNotFoundError: `instance delete` deletes state directly only when no
 * daemon runs at all, never under daemons that are running.
 */
export class SeveralDaemonsError extends Error {
  override name = 'SeveralDaemonsError';
}
