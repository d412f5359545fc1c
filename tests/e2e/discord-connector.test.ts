/**
 * The `discord` connector (Interactions Endpoint) against a fake Discord API, through the real
 * daemon: Ed25519 request signatures, PING/PONG, slash commands answered with a deferred response
 * and then completed by editing @original (follow-ups past 2000 characters), properties reaching
 * the model, 5xx/429 retried.
 */
import { describe, expect, test } from 'bun:test';
import type { RecordedCall } from './fake-chat-providers.ts';
import { chatRig, discordHeaders, expectNoCredentialLogged, instanceExists } from './chat-connectors-harness.ts';

const rig = chatRig();
let nextInteraction = 1;

function slashCommand(channelId: string, question: string): Record<string, unknown> {
  const n = nextInteraction++;
  return {
    id: `900${n}`,
    application_id: 'APP1',
    type: 2,
    token: `itoken-${n}-${channelId}`,
    channel_id: channelId,
    guild_id: 'G1',
    member: { user: { id: 'U5', username: 'dee' } },
    data: { id: 'CMD1', name: 'ask', type: 1, options: [{ name: 'question', type: 3, value: question }] },
  };
}

function post(body: unknown, headers?: Record<string, string>): Promise<Response> {
  const text = JSON.stringify(body);
  return fetch(rig().urls.discord, { method: 'POST', headers: headers ?? discordHeaders(rig().discordPrivateKey, text), body: text });
}

const original = (interaction: Record<string, unknown>) => (call: RecordedCall) =>
  call.method === 'PATCH' && call.path === `/discord/webhooks/APP1/${String(interaction.token)}/messages/@original`;

describe('discord: request verification', () => {
  test('a signed PING is answered with PONG', async () => {
    const response = await post({ id: 'p1', application_id: 'APP1', type: 1, token: 't' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ type: 1 });
  });

  test('a bad or missing Ed25519 signature is 401 (PING included) and nothing is emitted', async () => {
    const { fake } = rig();
    const forged = slashCommand('CHBAD', 'sneaky');
    const signedOther = discordHeaders(rig().discordPrivateKey, JSON.stringify({ other: true }));
    expect((await post(forged, signedOther)).status).toBe(401);
    expect((await post(forged, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await post({ type: 1 }, signedOther)).status).toBe(401);
    const barrier = slashCommand('CHBARRIER', 'barrier');
    await post(barrier);
    await fake.waitForDelivered(original(barrier), 'the barrier answer');
    expect(instanceExists(rig(), 'desk', 'discord:CHBAD')).toBe(false);
    expect(fake.calls.some((c) => c.path.includes('CHBAD'))).toBe(false);
  });
});

describe('discord: slash commands', () => {
  test('a slash command is deferred at once, becomes a turn on discord:<channel_id>, and the reply replaces the deferred message', async () => {
    const { fake } = rig();
    const interaction = slashCommand('CH1', 'what is up?');
    const response = await post(interaction);
    expect(await response.json()).toEqual({ type: 5 });
    const [edit] = await fake.waitForDelivered(original(interaction), 'the edited original response');
    const content = String(edit?.body.content);
    expect(content).toStartWith('desk got: what is up?');
    expect(content).toContain('instanceKey: discord:CH1');
    expect(content).toContain('properties.channel_id: CH1');
    expect(content).toContain('properties.guild_id: G1');
    expect(content).toContain('properties.user_id: U5');
    expect(content).toContain(`properties.interaction_id: ${String(interaction.id)}`);
    expect(content).not.toContain(String(interaction.token));
  });

  test('a reply over 2000 characters edits the original with the first piece and follows up with the rest', async () => {
    const { fake } = rig();
    const interaction = slashCommand('CH2', `${'long '.repeat(500)}tail`);
    await post(interaction);
    const followUp = (call: RecordedCall) => call.method === 'POST' && call.path === `/discord/webhooks/APP1/${String(interaction.token)}`;
    await fake.waitForDelivered(followUp, 'a follow-up message');
    const [edit] = fake.delivered(original(interaction));
    expect(String(edit?.body.content).length).toBeLessThanOrEqual(2000);
    for (const call of fake.delivered(followUp)) expect(String(call.body.content).length).toBeLessThanOrEqual(2000);
    expect([edit, ...fake.delivered(followUp)].map((c) => String(c?.body.content)).join(' ')).toContain(`${'long '.repeat(499)}long tail`);
  });

  test('editing the original failing with 500 and 429 (retry_after) is retried until it succeeds, once', async () => {
    const { fake } = rig();
    const interaction = slashCommand('CH3', 'retry me');
    fake.failNext(`/webhooks/APP1/${String(interaction.token)}/messages/@original`, [
      { status: 500, body: { message: 'Internal Server Error' } },
      { status: 429, body: { message: 'You are being rate limited.', retry_after: 0.5, global: false } },
    ]);
    await post(interaction);
    await fake.waitForDelivered(original(interaction), 'the edit after two failures');
    expect(fake.calls.filter(original(interaction)).map((c) => c.status)).toEqual([500, 429, 200]);
  });

  test('no secret and no interaction token appears in any log line', () => {
    expectNoCredentialLogged(rig());
    expect(rig().daemon.logs.filter((line) => JSON.stringify(line).includes('itoken-'))).toEqual([]);
  });
});
