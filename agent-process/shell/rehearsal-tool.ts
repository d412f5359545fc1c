/**
 * The one tool a warm spare's rehearsal runs (agent-rehearsal.ts): a no-op of the process itself,
 * registered only in the rehearsal's engine, which the rehearsal's mock model is scripted to call
 * once before it answers. The spare then has gone through the whole tool-call path — the model's
 * tool call read back, the toolCall chain, the argument check, the permission gate, the journal,
 * the handler's scope and time limit, the result and the step after it — which an instance's first
 * real tool call would otherwise run for the first time. Every tool of the plan stays refused.
 * Measured on the e2e swarm, new instanceKeys 10 per second, a first message whose turn calls one
 * tool (four alternated pairs): the call 3.9–5.4 → 1.4–2.1 ms (a warm instance's: 1.2–1.9), the
 * turn 5.5–7.2 → 2.7–3.5 ms, the reply 13–20 → 8–10.5 ms. The price: 3–6 ms more CPU in each spare,
 * which an agent whose first turn calls no tool pays for nothing.
 */
import type { ModelPlan } from '../../shared/types/bundle.ts';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolCatalogItem, ToolHandler } from '../../shared/types/tools.ts';

const OWNER = 'goondan-rehearsal';
export const REHEARSAL_TOOL_NAME = `${OWNER}__noop`;

const item: ToolCatalogItem = {
  name: REHEARSAL_TOOL_NAME,
  description: 'Does nothing: a warm spare calls it once while it rehearses a turn.',
  parameters: { type: 'object', properties: {} },
};

const handler: ToolHandler = () => ({ rehearsed: true });

/** The rehearsal engine's own tools (AgentEngineOptions.ownTools). */
export const rehearsalTools = [{ owner: OWNER, item, handler }] as const;

/**
 * The rehearsal's mock model (a rehearsal's model is always the mock): its script gains a last
 * rule that calls the no-op on the rehearsal's input, then answers. Last, so that a script of the
 * plan's own that answers that input still decides (and any tool it asks for is refused). Without
 * its simulated latency: the rehearsal is not measured, and two steps must not double a slow one.
 */
export function withRehearsalCall(model: ModelPlan, input: string): ModelPlan {
  const options: JsonObject = model.options;
  const rules = Array.isArray(options.rules) ? options.rules : [];
  const rule: JsonObject = { match: input, toolCalls: [{ name: REHEARSAL_TOOL_NAME, args: {} }], then: 'rehearsed' };
  return { ...model, options: { ...options, latencyMs: 0, rules: [...rules, rule] } };
}
