/** `{resource}__{export}` names (tool spec §5.3): the model sees them verbatim. */

const SEPARATOR = '__';

export function buildToolName(resourceName: string, exportName: string): string {
  return `${resourceName}${SEPARATOR}${exportName}`;
}

/** Splits on the first `__`; null when there is none or either side is empty. */
export function parseToolName(fullName: string): { resourceName: string; exportName: string } | null {
  const at = fullName.indexOf(SEPARATOR);
  if (at <= 0) return null;
  const exportName = fullName.slice(at + SEPARATOR.length);
  if (exportName === '' || exportName.includes(SEPARATOR)) return null;
  return { resourceName: fullName.slice(0, at), exportName };
}
