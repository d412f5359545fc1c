/** How the CLI prints an error that reached it (an ErrorShape from a reply or an HTTP body). */
import { isJsonObject } from '../../shared/types/json.ts';

/** What is printed of an error: an ErrorShape, or any `{code, message, suggestion?}` a daemon answers with. */
export interface PrintedError {
  code: string;
  message: string;
  suggestion?: string;
  file?: string;
}

export function printedError(value: unknown): PrintedError | undefined {
  if (!isJsonObject(value) || typeof value.code !== 'string' || typeof value.message !== 'string') return undefined;
  const file = isJsonObject(value.details) ? value.details.file : undefined;
  return {
    code: value.code,
    message: value.message,
    ...(typeof value.suggestion === 'string' ? { suggestion: value.suggestion } : {}),
    ...(typeof file === 'string' ? { file } : {}),
  };
}

/** `prefix: CODE: message` then, indented, what to do and where to look. */
export function formatFailure(prefix: string, error: unknown, fallbackCode: string, context?: string): string {
  const shape = printedError(error);
  const lines = [`${prefix}: ${shape?.code ?? fallbackCode}: ${shape?.message ?? 'the request failed'}`];
  if (shape?.suggestion) lines.push(`  → ${shape.suggestion}`);
  if (shape?.file) lines.push(`  file: ${shape.file}`);
  if (context) lines.push(`  (${context})`);
  return lines.join('\n');
}
