/**
 * The rig of the chat-connector e2e tests: fake provider APIs on loopback, and the REAL daemon
 * running tests/fixtures/e2e/chat-connectors with every chat connector of @goondan/base pointed
 * at them (config.apiBaseUrl). Credentials are random per run so a test can prove that none of
 * them ever reaches a log line.
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { instancePaths } from '../../shared/state-paths.ts';
import { DAEMON_TEST_MS, type Daemon, REPO_ROOT, startDaemon } from './daemon-harness.ts';
import { type FakeChatProviders, startFakeChatProviders } from './fake-chat-providers.ts';

export const CHAT_BUNDLE = join(REPO_ROOT, 'tests/fixtures/e2e/chat-connectors');
/** The fixture's swarm name, which is also its workspace id. */
const WORKSPACE = 'chat';

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

export interface ChatRig {
  daemon: Daemon;
  fake: FakeChatProviders;
  urls: { telegramHook: string; slack: string; discord: string; github: string };
  credentials: {
    tgPollToken: string;
    tgHookToken: string;
    tgSlowToken: string;
    tgHookSecret: string;
    slackSigning: string;
    slackToken: string;
    githubSecret: string;
    githubToken: string;
  };
  discordPrivateKey: KeyObject;
}

/** Starts the rig before the file's tests and removes it after them. */
export function chatRig(): () => ChatRig {
  let rig: ChatRig | undefined;
  beforeAll(async () => {
    const fake = startFakeChatProviders();
    const keys = generateKeyPairSync('ed25519');
    const jwk = keys.publicKey.export({ format: 'jwk' });
    const credentials = {
      tgPollToken: `111:${secret('poll')}`,
      tgHookToken: `222:${secret('hook')}`,
      tgSlowToken: `333:${secret('slow')}`,
      tgHookSecret: secret('tgsecret'),
      slackSigning: secret('slacksigning'),
      slackToken: `xoxb-${secret('slack')}`,
      githubSecret: secret('ghsecret'),
      githubToken: `ghp_${secret('gh')}`,
    };
    const daemon = await startDaemon(CHAT_BUNDLE, {
      env: {
        FAKE_TELEGRAM_URL: `${fake.url}/telegram`,
        FAKE_SLACK_URL: `${fake.url}/slack`,
        FAKE_DISCORD_URL: `${fake.url}/discord`,
        FAKE_GITHUB_URL: `${fake.url}/github`,
        TG_POLL_TOKEN: credentials.tgPollToken,
        TG_HOOK_TOKEN: credentials.tgHookToken,
        TG_SLOW_TOKEN: credentials.tgSlowToken,
        TG_HOOK_SECRET: credentials.tgHookSecret,
        // Port 0: each connector takes a free port as it listens and logs its URL. A port picked here
        // and freed for the daemon could be taken meanwhile (an outgoing connection's ephemeral
        // port): the connector then never listened, and the rig waited out its hook's timeout.
        TG_HOOK_PORT: '0',
        SLACK_PORT: '0',
        SLACK_SIGNING: credentials.slackSigning,
        SLACK_TOKEN: credentials.slackToken,
        DISCORD_PORT: '0',
        DISCORD_PUBLIC_KEY: Buffer.from(jwk.x ?? '', 'base64url').toString('hex'),
        GITHUB_PORT: '0',
        GITHUB_SECRET: credentials.githubSecret,
        GITHUB_TOKEN_FOR_TEST: credentials.githubToken,
      },
    });
    const urlOf = new Map<string, string>();
    for (const [connection, msg] of [
      ['tg-poll', 'telegram polling'],
      ['tg-slow', 'telegram polling'],
      ['tg-hook', 'telegram listening'],
      ['slack-events', 'slack listening'],
      ['discord-interactions', 'discord listening'],
      ['github-hooks', 'github listening'],
    ] as const) {
      const line = await daemon.waitForLog(`${connection}: ${msg}`, (l) => l.connection === connection && l.msg === msg);
      if (typeof line.url === 'string') urlOf.set(connection, line.url);
    }
    const url = (connection: string): string => {
      const found = urlOf.get(connection);
      if (found === undefined) throw new Error(`connection ${connection} logged no url with its listening line`);
      return found;
    };
    rig = {
      daemon,
      fake,
      urls: {
        telegramHook: url('tg-hook'),
        slack: url('slack-events'),
        discord: url('discord-interactions'),
        github: url('github-hooks'),
      },
      credentials,
      discordPrivateKey: keys.privateKey,
    };
    // Longer than a log wait (WAIT_MS): a connector that never listens fails with its log, not a bare hook timeout.
  }, DAEMON_TEST_MS);
  // Killed, not drained: nothing is checked after the tests, and a drain waited out the turn the
  // reply-timeout test leaves running (its model takes 6 s) and the connectors' long polls.
  afterAll(async () => {
    await rig?.daemon.stop('SIGKILL');
    rig?.daemon.cleanup();
    rig?.fake.stop();
  }, 60_000);
  return () => {
    if (!rig) throw new Error('the chat rig has not started');
    return rig;
  };
}

/** True once an agent instance has state (it ran a turn, or was at least spawned for one). */
export function instanceExists(rig: ChatRig, agent: string, instanceKey: string): boolean {
  return existsSync(instancePaths(rig.daemon.stateRoot, WORKSPACE, agent, instanceKey).root);
}

/** The agent's folded conversation, as text. */
export async function conversationText(rig: ChatRig, agent: string, instanceKey: string): Promise<string> {
  const file = Bun.file(instancePaths(rig.daemon.stateRoot, WORKSPACE, agent, instanceKey).baseMessages);
  return (await file.exists()) ? file.text() : '';
}

/** No credential of the rig appears in anything the daemon or its children logged. */
export function expectNoCredentialLogged(rig: ChatRig): void {
  const everything = `${rig.daemon.logs.map((line) => JSON.stringify(line)).join('\n')}\n${rig.daemon.stderr()}`;
  for (const [name, value] of Object.entries(rig.credentials)) {
    expect({ name, logged: everything.includes(value) }).toEqual({ name, logged: false });
  }
}

export function slackSignature(signingSecret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export function githubSignature(webhookSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`;
}

export function discordHeaders(privateKey: KeyObject, body: string, timestamp = String(Math.floor(Date.now() / 1000))): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-signature-timestamp': timestamp,
    'x-signature-ed25519': sign(null, Buffer.from(timestamp + body), privateKey).toString('hex'),
  };
}
