/**
 * Cluster mode and a polling connector: one node at a time polls the provider with the
 * connection's bot token (two pollers of one token take each other's updates), granted by the node
 * holding the connection's partition lease; when that node dies, the survivor takes the lease and
 * polls. Real nodes, a real `nats-server`, a fake Telegram API on loopback. Each node is given its
 * own bot token here, only so that the fake can tell which node polls.
 */
import { afterEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partitionOf, rendezvousOwner } from '../../orchestrator/cluster/partitions.ts';
import { type NatsServer, startNatsServer } from '../helpers/nats-server.ts';
import { PARTITIONS, spreadOver } from './cluster-spread.ts';
import { type Daemon, startDaemon, waitFor } from './daemon-harness.ts';
import { type FakeChatProviders, startFakeChatProviders } from './fake-chat-providers.ts';

const NODES = ['na', 'nb'];
const BUNDLE_YAML = `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: echo }
spec: { provider: mock, model: echo, options: { default: "desk got: {{input}}" } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: desk }
spec: { modelConfig: { modelRef: Model/echo } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: chat }
spec: { entryAgent: Agent/desk, agents: [Agent/desk] }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: tg }
spec:
  connectorRef: Connector/telegram
  config:
    mode: { value: polling }
    apiBaseUrl: { valueFrom: { env: FAKE_TELEGRAM_URL } }
    pollTimeoutSeconds: { value: "1" }
    retryBaseMs: { value: "50" }
  secrets:
    token: { valueFrom: { env: TG_POLL_TOKEN } }
`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tokenOf = (node: string) => `bot-of-${node}`;
let nextUpdateId = 1;
function textUpdate(chatId: number, text: string): Record<string, unknown> {
  const updateId = nextUpdateId++;
  return { update_id: updateId, message: { message_id: 1000 + updateId, date: 1_700_000_000, chat: { id: chatId, type: 'private' }, from: { id: 77, is_bot: false, first_name: 'Ann' }, text } };
}

async function startNode(nats: NatsServer, fake: FakeChatProviders, bundle: string, nodeId: string): Promise<Daemon> {
  const daemon = await startDaemon(bundle, {
    env: { GOONDAN_WARM_POOL: '0', GOONDAN_LOG_LEVEL: 'info', FAKE_TELEGRAM_URL: `${fake.url}/telegram`, TG_POLL_TOKEN: tokenOf(nodeId) },
    args: ['--cluster', nats.url, '--node-id', nodeId, '--cluster-lease-seconds', '3'],
  });
  cleanups.push(() => daemon.cleanup());
  return daemon;
}

const pollsBy = (fake: FakeChatProviders, node: string) => fake.polls.filter((token) => token === tokenOf(node)).length;

test('one node polls; the other waits, and polls once the first is killed', async () => {
  const nats = await startNatsServer();
  cleanups.push(() => nats.stop());
  const fake = startFakeChatProviders();
  cleanups.push(() => fake.stop());
  const dir = mkdtempSync(join(tmpdir(), 'goondan-exclusive-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'goondan.yaml'), BUNDLE_YAML);

  const nodes = new Map<string, Daemon>();
  for (const id of NODES) nodes.set(id, await startNode(nats, fake, dir, id));
  const holder = rendezvousOwner(partitionOf({ agent: 'connection', instanceKey: 'tg' }, PARTITIONS), NODES) ?? '';
  const other = NODES.find((id) => id !== holder) ?? '';
  const holderNode = nodes.get(holder);
  const otherNode = nodes.get(other);
  if (!holderNode || !otherNode) throw new Error('nodes missing');

  // The node started first held everything for a moment (and may have polled then); once the
  // partitions are spread, only the holder polls: several cycles (1 s each), none of the other.
  await spreadOver(NODES.map((id) => [id, nodes.get(id) as Daemon]));
  await otherNode.waitForLog('the other node’s connector waiting', (l) => l.msg === 'connection waits: another node holds it' && l.connection === 'tg');
  const otherBefore = pollsBy(fake, other);
  const holderBefore = pollsBy(fake, holder);
  await waitFor('the holder’s connector polling', () => pollsBy(fake, holder), (n) => n >= holderBefore + 3);
  expect(pollsBy(fake, other)).toBe(otherBefore);

  fake.pushTelegramUpdate(tokenOf(holder), textUpdate(4242, 'hello'));
  const sent = (node: string) => fake.delivered((call) => call.path === `/telegram/bot${tokenOf(node)}/sendMessage`);
  await waitFor('the reply sent through the holder', () => sent(holder).length, (n) => n === 1);
  expect(sent(holder)[0]?.body.text).toBe('desk got: hello');

  // The holder dies: after its lease runs out the survivor takes the partition and polls.
  expect(await holderNode.stop('SIGKILL')).not.toBe(0);
  await waitFor('the survivor’s connector polling', () => pollsBy(fake, other), (n) => n >= 1, 30_000);
  fake.pushTelegramUpdate(tokenOf(other), textUpdate(4343, 'still there?'));
  await waitFor('the reply sent through the survivor', () => sent(other).length, (n) => n === 1, 30_000);
  expect(sent(other)[0]?.body.text).toBe('desk got: still there?');
});
