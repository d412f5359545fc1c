/**
 * The nats-server test helper gives cluster tests a real JetStream server: reachable on its
 * loopback port, with a file store that survives `restart()`, and gone (port closed, store removed)
 * after `stop()`. It also shows the client calls (@nats-io v3) that work against Debian's 2.9.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { acceptsConnections, natsServerVersion, startNatsServer, type NatsServer } from './nats-server.ts';
import { isRunning, waitUntilGone } from './process-state.ts';
import { waitFor, within } from './wait-for.ts';

const servers: NatsServer[] = [];
const connections: NatsConnection[] = [];
afterEach(async () => {
  for (const nc of connections.splice(0)) await nc.close().catch(() => undefined);
  for (const server of servers.splice(0)) await server.stop();
});

async function server(): Promise<NatsServer> {
  const started = await startNatsServer();
  servers.push(started);
  return started;
}

/**
 * Resolves at the client's next reconnect. Wait for it before using the connection again: the v3
 * client drops what was published while it was disconnected (its outbound buffer is reset).
 */
async function nextReconnect(nc: NatsConnection): Promise<void> {
  for await (const status of nc.status()) if (status.type === 'reconnect') return;
  throw new Error('the connection closed without reconnecting');
}

async function client(url: string): Promise<NatsConnection> {
  // Reconnect forever, quickly: a test restarting the server wants the client back at once.
  const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  connections.push(nc);
  return nc;
}

describe('natsServerVersion', () => {
  test('reads a 2.9 or newer version from `nats-server --version`', () => {
    const [major, minor] = natsServerVersion().split('.').map(Number);
    expect({ major, minorAtLeast9: major === 2 ? (minor ?? 0) >= 9 : true }).toEqual({ major: 2, minorAtLeast9: true });
  });
});

describe('startNatsServer', () => {
  test('serves JetStream on a loopback port: a stream and a KV bucket work', async () => {
    const nats = await server();
    expect(nats.url).toBe(`nats://127.0.0.1:${nats.port}`);
    const nc = await client(nats.url);
    expect(nc.info?.jetstream).toBe(true);

    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'HELPER', subjects: ['helper.>'] });
    const ack = await jetstream(nc).publish('helper.one', 'first');
    expect({ stream: ack.stream, seq: ack.seq }).toEqual({ stream: 'HELPER', seq: 1 });
    expect((await jsm.streams.getMessage('HELPER', { seq: 1 }))?.string()).toBe('first');

    const kv = await new Kvm(nc).create('helper');
    await kv.put('greeting', 'hello');
    expect((await kv.get('greeting'))?.string()).toBe('hello');
  });

  test('two servers get different ports and stores', async () => {
    const [a, b] = [await server(), await server()];
    expect(a.port).not.toBe(b.port);
    expect(a.storeDir).not.toBe(b.storeDir);
  });
});

describe('restart', () => {
  test('keeps the port and the JetStream file store, and a reconnecting client reads the value again', async () => {
    const nats = await server();
    const nc = await client(nats.url);
    const kv = await new Kvm(nc).create('durable');
    const revision = await kv.put('key', 'survives');
    const before = nats.pid();
    const reconnected = nextReconnect(nc);

    await nats.restart();

    expect(nats.pid()).not.toBe(before);
    expect(isRunning(before)).toBe(false);
    await within(reconnected, 'the client to reconnect to the restarted server');
    const entry = await waitFor('the KV value to be readable again after the server restarted', () => kv.get('key'), (value) => value !== null);
    expect({ value: entry?.string(), revision: entry?.revision }).toEqual({ value: 'survives', revision });
  });

  test('after kill9 the server is gone, and restart brings back what was stored', async () => {
    const nats = await server();
    const nc = await client(nats.url);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'KILLED', subjects: ['killed.>'] });
    // JetStream writes a message to its file before acking it; SIGKILL loses nothing the kernel holds.
    await jetstream(nc).publish('killed.one', 'kept');
    const pid = nats.pid();
    const reconnected = nextReconnect(nc);

    await nats.kill9();

    expect(isRunning(pid)).toBe(false);
    expect(await acceptsConnections(nats.port)).toBe(false);
    await nats.restart();
    await within(reconnected, 'the client to reconnect to the restarted server');
    const info = await waitFor('the stream to be readable after the restart', () => jsm.streams.info('KILLED'), () => true);
    expect(info.state.messages).toBe(1);
  });
});

describe('stop', () => {
  test('ends the process, closes the port and removes the store directory', async () => {
    const nats = await startNatsServer();
    const pid = nats.pid();
    expect(existsSync(nats.storeDir)).toBe(true);

    await within(nats.stop(), 'the nats-server to stop');

    expect({ running: isRunning(pid), accepts: await acceptsConnections(nats.port), store: existsSync(nats.storeDir) }).toEqual({ running: false, accepts: false, store: false });
    await expect(nats.restart()).rejects.toThrow('was stopped');
  });

  test('a server a test forgot to stop dies with the test process, and its store is removed', async () => {
    const script = `import { startNatsServer } from ${JSON.stringify(join(import.meta.dir, 'nats-server.ts'))};
const nats = await startNatsServer();
console.log(JSON.stringify({ pid: nats.pid(), port: nats.port, storeDir: nats.storeDir }));`;
    const run = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, code] = await within(Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]), 'the script that started a server to exit');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const left = JSON.parse(stdout) as { pid: number; port: number; storeDir: string };
    expect(await waitUntilGone([left.pid])).toEqual([]);
    expect({ accepts: await acceptsConnections(left.port), store: existsSync(left.storeDir) }).toEqual({ accepts: false, store: false });
  });
});
