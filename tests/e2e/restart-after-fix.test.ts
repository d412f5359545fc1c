/**
 * `goondan restart` after fixing a tool module: the restarted process and every new instance run the
 * module as it is now. Warm spares import the tool modules of the plan they rehearse, so a spare
 * booted before the fix held the old module — or its import error — and a restart handed it out.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { GOONDAN_BIN, daemonsKilledAfterEach, startDaemon } from './daemon-harness.ts';
import { tempBundle, type TempBundle } from '../config/temp-bundle.ts';

const BUNDLE = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: scripted }
spec:
  provider: mock
  model: scripted
  options:
    rules:
      - match: which version
        toolCalls: [{ name: probe__version }]
        then: "{{result}}{{error}}"
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: probe }
spec:
  entry: ./probe.ts
  exports:
    - name: version
      parameters: { type: object, properties: {} }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: solo }
spec:
  modelConfig: { modelRef: Model/scripted }
  tools: [Tool/probe]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: fix }
spec:
  entryAgent: Agent/solo
  agents: [Agent/solo]
`;

const probe = (body: string) => `export const handlers = { version: async () => { ${body} } };\n`;

const daemons = daemonsKilledAfterEach();
let bundle: TempBundle | undefined;
afterEach(() => bundle?.remove());

async function restart(stateRoot: string): Promise<void> {
  const proc = Bun.spawn([GOONDAN_BIN, 'restart', '--state-root', stateRoot], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  expect(await proc.exited).toBe(0);
}

describe('goondan restart after a fix', () => {
  test('a tool module edited while the daemon runs is what the restarted and the new instances run', async () => {
    bundle = tempBundle({ 'goondan.yaml': BUNDLE, 'probe.ts': probe("return 'v1';") });
    const daemon = await startDaemon(bundle.dir);
    daemons.push(daemon);
    expect((await daemon.send({ input: 'which version', instanceKey: 'a' })).body.output).toBe('v1');
    await daemon.waitForLog('a primed spare', (line) => line.msg === 'warm spare primed: it will be assigned without the plans it holds');
    bundle.write('probe.ts', probe("return 'v2';"));
    await restart(daemon.stateRoot);
    expect((await daemon.send({ input: 'which version', instanceKey: 'a' })).body.output).toBe('v2');
    expect((await daemon.send({ input: 'which version', instanceKey: 'b' })).body.output).toBe('v2');
  });

  test('a tool module that threw at import runs once fixed, after one restart', async () => {
    bundle = tempBundle({ 'goondan.yaml': BUNDLE, 'probe.ts': `throw new Error('boom at import');\n${probe("return 'v1';")}` });
    const daemon = await startDaemon(bundle.dir);
    daemons.push(daemon);
    const broken = await daemon.send({ input: 'which version', instanceKey: 'a' });
    expect(JSON.stringify(broken.body)).toContain('boom at import');
    bundle.write('probe.ts', probe("return 'fixed';"));
    await restart(daemon.stateRoot);
    expect((await daemon.send({ input: 'which version', instanceKey: 'a' })).body.output).toBe('fixed');
  });
});
