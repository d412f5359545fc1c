/** How the CLI prints an error that reached it (an ErrorShape from a reply or an HTTP body). */
import { isErrorShape } from '../../shared/errors/index.ts';

/** `prefix: CODE: message` then, indented, what to do and where to look. */
export function formatFailure(prefix: string, error: unknown, fallbackCode: string, context?: string): string {
  const shape = isErrorShape(error) ? error : undefined;
  const lines = [`${prefix}: ${shape?.code ?? fallbackCode}: ${shape?.message ?? 'the request failed'}`];
  if (shape?.suggestion) lines.push(`  → ${shape.suggestion}`);
  const file = shape?.details?.file;
  if (typeof file === 'string') lines.push(`  file: ${file}`);
  if (context) lines.push(`  (${context})`);
  return lines.join('\n');
}
