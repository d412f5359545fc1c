/** Thrown by argument parsing; main prints the message plus the command usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
