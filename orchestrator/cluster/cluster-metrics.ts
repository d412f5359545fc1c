/** The per-node figures cluster mode adds to /metrics (Prometheus text format). */
import type { ClusterNode } from './cluster-node.ts';

export function clusterMetricsText(node: ClusterNode): string {
  const label = `{node="${node.options.nodeId}"}`;
  const lines = [
    '# HELP goondan_cluster_connected 1 while this node is connected to NATS.',
    '# TYPE goondan_cluster_connected gauge',
    `goondan_cluster_connected${label} ${node.connected() ? 1 : 0}`,
    '# HELP goondan_cluster_members Nodes that may own partitions, as this node sees them.',
    '# TYPE goondan_cluster_members gauge',
    `goondan_cluster_members${label} ${node.membership.live().length}`,
    '# HELP goondan_cluster_partitions_owned Partitions whose lease this node holds.',
    '# TYPE goondan_cluster_partitions_owned gauge',
    `goondan_cluster_partitions_owned${label} ${node.ownedPartitions()}`,
    '# HELP goondan_cluster_takeovers_total Partitions this node took over from a node that stopped renewing.',
    '# TYPE goondan_cluster_takeovers_total counter',
    `goondan_cluster_takeovers_total${label} ${node.takeovers}`,
  ];
  return `${lines.join('\n')}\n`;
}
