/** Issue 15: how `goondan run` reads cluster mode from flags and the environment, and what it refuses. */
import { describe, expect, test } from 'bun:test';
import { clusterOptionsFrom, redactUrl } from '../../../orchestrator/cluster/cluster-options.ts';

describe('cluster options', () => {
  test('no --cluster and no GOONDAN_CLUSTER_URL: single-node mode', () => {
    expect(clusterOptionsFrom({}, {})).toBeUndefined();
  });

  test('flags win over the environment; defaults for the lease and the partitions', () => {
    const options = clusterOptionsFrom({ cluster: 'nats://a:4222', nodeId: 'n1' }, { GOONDAN_CLUSTER_URL: 'nats://b:4222', GOONDAN_NODE_ID: 'env' });
    expect(options).toEqual({ url: 'nats://a:4222', nodeId: 'n1', leaseTimeoutMs: 10_000, partitions: 32 });
    const fromEnv = clusterOptionsFrom({}, { GOONDAN_CLUSTER_URL: 'tls://b:4222', GOONDAN_NODE_ID: 'env', GOONDAN_CLUSTER_LEASE_SECONDS: '3', GOONDAN_CLUSTER_CREDS: '/x.creds' });
    expect(fromEnv).toEqual({ url: 'tls://b:4222', nodeId: 'env', leaseTimeoutMs: 3_000, partitions: 32, credsFile: '/x.creds' });
  });

  test('bad values are usage errors that name the flag', () => {
    expect(() => clusterOptionsFrom({ cluster: 'http://a:4222' }, {})).toThrow(/--cluster .* is not a NATS URL/);
    expect(() => clusterOptionsFrom({ cluster: 'nats://a:4222', nodeId: 'has space' }, {})).toThrow(/--node-id/);
    expect(() => clusterOptionsFrom({ cluster: 'nats://a:4222', leaseSeconds: '0' }, {})).toThrow(/--cluster-lease-seconds/);
  });

  test('credentials in a URL never reach a log', () => {
    expect(redactUrl('nats://user:secret@host:4222')).toBe('nats://***@host:4222');
    expect(redactUrl('nats://tok3n@host:4222')).toBe('nats://***@host:4222');
    expect(() => clusterOptionsFrom({ cluster: 'http://user:secret@a' }, {})).toThrow(/\*\*\*/);
  });
});
