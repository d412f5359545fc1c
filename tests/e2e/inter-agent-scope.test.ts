/**
 * Swarm.spec.policy.interAgent on a real daemon: an agent reaches its own instance, the keys under
 * and above it and the shared keys — not another tenant's conversation — and a loop of agents
 * messaging each other ends at maxHops, whatever the tool call's metadata says.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { REPO_ROOT, sharedDaemon, waitFor } from './daemon-harness.ts';

const BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/inter-agent-scope');
const WORKSPACE = 'scope';
const daemon = sharedDaemon(BUNDLE);

function conversation(agent: string, instanceKey: string, file: 'baseMessages' | 'inbox' = 'baseMessages'): string {
  try {
    return readFileSync(instancePaths(daemon().stateRoot, WORKSPACE, agent, instanceKey)[file], 'utf8');
  } catch {
    return '';
  }
}

async function output(input: string, instanceKey: string): Promise<string> {
  const { status, body } = await daemon().send({ input, instanceKey });
  expect(status).toBe(200);
  return String(body.output);
}

describe('an agent reaches only the instances of its own tenant (instanceKeys: scoped)', () => {
  test('another tenant’s instance is refused, and nothing reaches it', async () => {
    await output('hello from bob', 'bob');
    const answer = await output('ask beta at bob what did bob say', 'alice');
    expect(answer).toStartWith('beta said: INSTANCE_OUT_OF_SCOPE: ');
    expect(answer).toContain("may not reach instance 'bob'");
    expect(conversation('beta', 'bob')).toBe('');
    const told = await output('tell alpha at bob you have been hacked', 'alice');
    expect(told).toStartWith('told alphaINSTANCE_OUT_OF_SCOPE: ');
    expect(conversation('alpha', 'bob')).not.toContain('hacked');
    expect(await output('spawn beta as bob', 'alice')).toContain('"code":"INSTANCE_OUT_OF_SCOPE"');
  });

  test('its own key, keys under it, keys above it and the shared keys are reached', async () => {
    expect(await output('ask beta at carol/helper do the dishes', 'carol')).toBe('beta said: beta got: do the dishes');
    expect(await output('ask alpha at carol how are you', 'carol/helper')).toBe('alpha said: alpha got: how are you');
    expect(await output('ask beta at lobby hello everyone', 'carol')).toBe('beta said: beta got: hello everyone');
    expect(JSON.parse(await output('spawn beta as carol/worker', 'carol'))).toEqual({ target: 'beta', instanceKey: 'carol/worker', spawned: true });
  });

  test('agents__list with includeAll shows no other tenant’s keys', async () => {
    await output('hello from dave', 'dave');
    await output('ask beta at erin/helper hi', 'erin');
    const listed = JSON.parse(await output('list instances', 'erin')) as { agents: Array<{ instanceKey: string }> };
    const keys = listed.agents.map((a) => a.instanceKey);
    expect(keys).toContain('erin/helper');
    expect(keys).not.toContain('dave');
    expect(keys.every((key) => key === 'erin' || key.startsWith('erin/') || key === 'lobby')).toBe(true);
  });
});

describe('a loop of agent messages ends at maxHops', () => {
  test('alpha and beta bounce a message until the fifth send is refused; a tool call cannot reset the count', async () => {
    expect(await output('bounce beta alpha', 'loop-1')).toBe('bounced');
    // Hops: alpha→beta 1, beta→alpha 2, alpha→beta 3, beta→alpha 4; alpha's next send would be the 5th.
    await waitFor("alpha's refused send", () => conversation('alpha', 'loop-1'), (text) => text.includes('HOP_LIMIT_EXCEEDED'));
    const bounces = (agent: string) => conversation(agent, 'loop-1').split('\n').filter((line) => line.includes('"role":"user"') && line.includes('bounce')).length;
    expect({ alpha: bounces('alpha'), beta: bounces('beta') }).toEqual({ alpha: 3, beta: 2 });
  });

  test('a fan-out within maxHops ends at maxMessagesPerTrace', async () => {
    expect(await output('fan fan-1', 'fan-1')).toBe('fanned out');
    // alpha's 3 sends and 3 of the first 3 betas' 9 are let through: 6 beta turns. The other 6 of
    // theirs and all 9 of the second betas' are refused.
    const refused = () => daemon().logs.filter((line) => line.code === 'HOP_LIMIT_EXCEEDED' && String(line.msg).includes('maxMessagesPerTrace'));
    await waitFor('15 refused sends', () => refused().length, (n) => n >= 15);
    const turns = (await daemon().processes()).filter((p) => p.agent === 'beta' && String(p.instanceKey).startsWith('fan-1/'));
    expect(turns).toHaveLength(6);
    expect(refused()).toHaveLength(15);
  });

  test('the runtime keeps a tool call’s own metadata but not its reserved keys', async () => {
    await output('tell beta at meta-1 with a note', 'meta-1');
    const inbox = await waitFor("beta's inbox", () => conversation('beta', 'meta-1', 'inbox'), (text) => text.includes('with a note'));
    expect(inbox).toContain('"note":"kept"');
    expect(inbox).toContain('"__hops":1');
    expect(inbox).not.toContain('"__hops":0');
  });

  test('a tool call cannot send the runtime’s control events, nor pass a message off as a reply', async () => {
    const forged = await output('forge runtime.observe', 'forge-1');
    expect(forged).toStartWith('forgedINVALID_REQUEST: ');
    expect(forged).toContain("'runtime.observe' is reserved");
    expect(await output('spoof a reply', 'forge-2')).toBe('told beta');
    await waitFor("beta's turn on the spoofed message", () => conversation('beta', 'forge-2'), (text) => text.includes('beta got: spoofed hello'));
  });
});
