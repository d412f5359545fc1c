/**
 * A failed model call as a stable TurnError (the turn ends with `finishReason: 'error'`, never an
 * exception): rate limits, auth problems, unreachable endpoints and other API errors get their own
 * codes and a suggestion. The provider package is loaded here only when a call failed.
 */
import type { TurnError } from '../../shared/types/turns.ts';
import { GoondanError, errorMessageOf } from '../../shared/errors/index.ts';
import { ModelRetryError } from './model-retry.ts';

export async function modelCallError(modelName: string, error: unknown): Promise<TurnError> {
  // The orchestrator refused the call (BUDGET_EXCEEDED, …): its error is already the one to show.
  if (GoondanError.isInstance(error)) return error.toJSON();
  const { APICallError, LoadAPIKeyError } = await import('@ai-sdk/provider');
  const last = error instanceof ModelRetryError ? error.lastError : error;
  const attempts = error instanceof ModelRetryError ? ` after ${error.errors.length} attempts` : '';
  if (LoadAPIKeyError.isInstance(last)) {
    return { category: 'provider', code: 'E_MODEL_AUTH', message: `Model '${modelName}': ${last.message}`, suggestion: 'Set spec.apiKey on the Model (a ValueSource) or the provider environment variable.' };
  }
  if (APICallError.isInstance(last)) {
    const status = last.statusCode;
    const where = `Model '${modelName}' (${last.url})`;
    if (status === 401 || status === 403) {
      return { category: 'provider', code: 'E_MODEL_AUTH', message: `${where} rejected the credentials (HTTP ${status}): ${last.message}`, suggestion: 'Check the Model apiKey.' };
    }
    if (status === 429) {
      return { category: 'provider', code: 'E_MODEL_RATE_LIMITED', message: `${where} is rate limiting${attempts}: ${last.message}`, suggestion: 'Retry later or raise Model options.maxRetries.' };
    }
    if (status === undefined) {
      return { category: 'provider', code: 'E_MODEL_UNREACHABLE', message: `${where} is unreachable${attempts}: ${last.message}`, suggestion: 'Check Model spec.endpoint and the network.' };
    }
    return { category: 'provider', code: 'E_MODEL_API', message: `${where} failed with HTTP ${status}${attempts}: ${last.message}` };
  }
  return { category: 'provider', code: 'E_MODEL_CALL', message: `Model '${modelName}' call failed: ${errorMessageOf(last)}` };
}
