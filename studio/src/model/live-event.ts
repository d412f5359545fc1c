/** What arrives on the event stream, narrowed from JSON: runtime events and `step.delta` chunks. Pure. */
import { RUNTIME_EVENT_TYPES, type RuntimeEvent } from '../../../shared/types/turns.ts';
import { isObject, str } from '../json-fields.ts';

/** A chunk of model output while a step streams (`step.delta`). */
export interface StepDelta {
  type: 'step.delta';
  traceId: string;
  agentName: string;
  instanceKey: string;
  text: string;
}

export type LiveEvent = RuntimeEvent | StepDelta;

/** The stream's JSON as a typed event, or undefined when it lacks what the views rely on. */
export function toLiveEvent(type: string, data: unknown): LiveEvent | undefined {
  if (!isObject(data) || (data.type !== undefined && data.type !== type) || str(data, 'traceId') === '') return undefined;
  if (type === 'step.delta') {
    // The issue text names the agent field `agent`, the runtime events `agentName`: accept both.
    const agentName = str(data, 'agentName') || str(data, 'agent');
    return { type: 'step.delta', traceId: str(data, 'traceId'), agentName, instanceKey: str(data, 'instanceKey'), text: str(data, 'text') };
  }
  return isRuntimeEvent(data) ? data : undefined;
}

/** The envelope the views rely on; the rest was checked by the daemon when the agent sent it. */
function isRuntimeEvent(data: Record<string, unknown>): data is RuntimeEvent & Record<string, unknown> {
  return RUNTIME_EVENT_TYPES.some((type) => type === data.type) && ['agentName', 'instanceKey', 'spanId', 'timestamp'].every((key) => typeof data[key] === 'string');
}
