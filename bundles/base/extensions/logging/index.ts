/**
 * logging (SPEC.md §5.4): one structured line per turn, step and tool call — start, completion
 * (with durations and token usage) and failure — through `api.logger`. It listens to the runtime
 * events on `api.events` rather than wrapping the pipelines, so it also sees calls no middleware
 * runs for (unparseable arguments) and reports the engine's own durations. Tool arguments are
 * logged only with `includeToolArgs`, and then with secret-looking keys redacted.
 */
import type { ExtensionApi } from '../../../../shared/types/extensions.ts';
import type { JsonObject, JsonValue } from '../../../../shared/types/json.ts';
import type { RuntimeEvent, RuntimeEventType } from '../../../../shared/types/turns.ts';
import { readLoggingConfig } from './logging-config.ts';
import { runtimeEventLine } from './runtime-event-line.ts';

// A local list: entry modules import only types from shared/ (ARCHITECTURE §1).
const LOGGED_EVENTS: readonly RuntimeEventType[] = [
  'turn.started',
  'turn.completed',
  'turn.failed',
  'step.started',
  'step.completed',
  'step.failed',
  'tool.called',
  'tool.completed',
  'tool.failed',
];

export function register(api: ExtensionApi, config: JsonObject): void {
  const options = readLoggingConfig(config);
  const unsubscribe = LOGGED_EVENTS.map((name) =>
    api.events.on(name, (payload) => {
      if (!isRuntimeEvent(payload, name)) return;
      const line = runtimeEventLine(payload, options);
      api.logger[line.level](line.fields, line.message);
    }),
  );
  api.onClose?.(() => {
    for (const stop of unsubscribe) stop();
  });
}

/** Runtime events arrive typed as `RuntimeEvent | JsonValue`; a custom emit under the same name is ignored. */
function isRuntimeEvent(payload: RuntimeEvent | JsonValue, name: RuntimeEventType): payload is RuntimeEvent {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    !Array.isArray(payload) &&
    payload.type === name &&
    typeof payload.traceId === 'string' &&
    typeof payload.spanId === 'string' &&
    typeof payload.turnId === 'string'
  );
}
