/** tool spec §10.4: cut `error.message` to `errorMessageLimit` (default 1000) with a visible suffix. */

export const DEFAULT_ERROR_MESSAGE_LIMIT = 1000;
export const TRUNCATION_SUFFIX = '... (truncated)';

export function truncateErrorMessage(message: string, limit: number = DEFAULT_ERROR_MESSAGE_LIMIT): string {
  if (message.length <= limit) return message;
  const max = Math.max(0, Math.floor(limit));
  // SPEC.md §5.2: a limit smaller than the suffix leaves no room for it; just slice.
  if (max < TRUNCATION_SUFFIX.length) return message.slice(0, max);
  return message.slice(0, max - TRUNCATION_SUFFIX.length) + TRUNCATION_SUFFIX;
}
