/**
 * Tool spec §6.1: an export's `description` and `parameters` are optional. A function without
 * arguments needs no `parameters`; its plan (and so the model and the args check) gets
 * `{ type: 'object', properties: {} }`.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { buildAgentPlan, loadBundle } from '../../shared/config/index.ts';
import { makePlan, trackEngines, userEvent } from '../agent-process/helpers/engine-fixture.ts';
import { MOCK_MODEL, type TempBundle, tempBundle } from './temp-bundle.ts';


const BUNDLE = `${MOCK_MODEL}---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: clock }
spec:
  entry: ./clock.ts
  exports:
    - name: now
    - name: zone
      description: The time zone.
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: a }
spec:
  modelConfig: { modelRef: Model/m }
  tools: [Tool/clock]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/a, agents: [Agent/a] }
`;
const MODULE = "export const handlers = { now: () => 'noon', zone: () => 'UTC' };\n";

let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());
const engines = trackEngines();

describe('tool spec §6.1: description and parameters are optional', () => {
  test('an export with only a name validates clean', async () => {
    bundle = tempBundle({ 'goondan.yaml': BUNDLE, 'clock.ts': MODULE });
    const loaded = await loadBundle(bundle.dir, { env: {} });
    expect(loaded.errors).toEqual([]);
  });

  test('the plan gives an export without parameters the empty object schema and no description', async () => {
    bundle = tempBundle({ 'goondan.yaml': BUNDLE, 'clock.ts': MODULE });
    const plan = buildAgentPlan(await loadBundle(bundle.dir, { env: {} }), 's', 'a', {});
    const [now, zone] = plan.tools[0]?.exports ?? [];
    expect(now).toEqual({ name: 'now', parameters: { type: 'object', properties: {} } });
    expect(zone).toEqual({ name: 'zone', description: 'The time zone.', parameters: { type: 'object', properties: {} } });
  });

  test('the engine offers such a tool to the model and runs a call without arguments', async () => {
    bundle = tempBundle({ 'goondan.yaml': BUNDLE, 'clock.ts': MODULE });
    const plan = buildAgentPlan(await loadBundle(bundle.dir, { env: {} }), 's', 'a', {});
    const script = { rules: [{ match: 'time', toolCalls: [{ name: 'clock__now' }], then: 'It is {{result}}.' }] };
    const h = await engines.start(makePlan({ name: 'a', tools: plan.tools, script }));
    const result = await h.engine.runTurn(userEvent('what time is it?'));
    expect(result.responseText).toBe('It is noon.');
  });
});
