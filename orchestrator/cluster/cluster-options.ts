/**
 * Cluster mode settings (issue 15): `--cluster URL` / `GOONDAN_CLUSTER_URL` turns it on; without
 * them the daemon is the embedded single-node default and loads nothing of NATS.
 */
import { hostname } from 'node:os';
import { UsageError } from '../cli/usage-error.ts';

export interface ClusterOptions {
  /** `nats://`, `tls://` (TLS) or `ws://` URL; `user:pass@` or `token@` carry credentials. */
  url: string;
  /** A NATS `.creds` file (JWT + nkey seed). */
  credsFile?: string;
  /** This node's name in membership, leases and `goondan ps` (`[A-Za-z0-9_-]`). */
  nodeId: string;
  /** A partition whose lease is not renewed for this long may be taken by another node. */
  leaseTimeoutMs: number;
  /** Partitions the instances hash into (fixed per swarm: every node must agree). */
  partitions: number;
}

export const DEFAULT_LEASE_TIMEOUT_MS = 10_000;
export const DEFAULT_PARTITIONS = 32;
const NODE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface ClusterFlags {
  cluster?: string;
  clusterCreds?: string;
  nodeId?: string;
  leaseSeconds?: string;
}

/** Undefined when cluster mode is off. Throws UsageError naming the bad flag or variable. */
export function clusterOptionsFrom(flags: ClusterFlags, env: Record<string, string | undefined>): ClusterOptions | undefined {
  const url = flags.cluster ?? env.GOONDAN_CLUSTER_URL;
  if (url === undefined || url === '') return undefined;
  if (!/^(nats|tls|ws|wss):\/\/[^\s]+$/.test(url)) {
    throw new UsageError(`--cluster '${redactUrl(url)}' is not a NATS URL; use nats://HOST:4222 (tls://… for TLS)`);
  }
  const nodeId = flags.nodeId ?? env.GOONDAN_NODE_ID ?? defaultNodeId();
  if (!NODE_ID.test(nodeId)) throw new UsageError(`--node-id '${nodeId}' must be 1–64 characters of A–Z, a–z, 0–9, '_' or '-'`);
  const leaseText = flags.leaseSeconds ?? env.GOONDAN_CLUSTER_LEASE_SECONDS;
  const leaseSeconds = leaseText === undefined ? DEFAULT_LEASE_TIMEOUT_MS / 1000 : Number(leaseText);
  if (!Number.isFinite(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > 300) {
    throw new UsageError(`--cluster-lease-seconds '${leaseText}' must be a number of seconds from 1 to 300`);
  }
  const credsFile = flags.clusterCreds ?? env.GOONDAN_CLUSTER_CREDS;
  return {
    url,
    nodeId,
    leaseTimeoutMs: Math.round(leaseSeconds * 1000),
    partitions: DEFAULT_PARTITIONS,
    ...(credsFile ? { credsFile } : {}),
  };
}

/** The URL as logs may show it: credentials replaced. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

function defaultNodeId(): string {
  const host = hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40) || 'node';
  return `${host}-${process.pid}`;
}
