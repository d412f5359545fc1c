/** tool-policy refuses, at start, an allow pattern that could never match (it spells shell operators). */
import { describe, expect, test } from 'bun:test';
import { echoTool, makePlan, startEngine, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { baseExtension } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

describe('tool-policy configuration', () => {
  test('an allow command pattern with shell operators is an error naming the rule and the fix', async () => {
    const plan = makePlan({
      tools: [echoTool()],
      script: { rules: [] },
      extensions: [baseExtension('tool-policy', { default: 'ask', rules: [{ tool: 'bash__exec', args: { command: 'cd build && make' }, action: 'allow' }] })],
    });
    const started = startEngine(plan).then((h) => {
      harnesses.push(h);
      return h;
    });
    await expect(started).rejects.toThrow(/rules\[0\]\.args\.command "cd build && make" spells shell operators.*one allow rule per command/);
  });
});
