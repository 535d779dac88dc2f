import { Inject, Injectable } from '@nestjs/common';
import { NODES_MANAGER_VERSION, type ClusterHeartbeat } from '@nodes-manager/contracts';
import { CLOCK, LOGGER, newMeta, type Clock, type JsonLogger } from '@nodes-manager/platform';
import type { KarpenterGatewayConfig } from '../config.js';
import { clusterHeartbeatOf } from '../domain/cluster-heartbeat.js';
import { KARPENTER_GATEWAY_CONFIG } from '../tokens.js';
import { CLUSTER_COUNT_SOURCES, type ClusterCountSources } from './cluster-counts.adapter.js';
import { ClusterHeartbeatRepository } from './cluster-heartbeat.repository.js';

const ACTOR = 'system:karpenter-gateway';
const failed = (err: unknown) => ({ error: (err as Error).message });

/**
 * ClusterHeartbeatService — one `cluster.heartbeat` (docs/fleet.md#the-cluster-heartbeat): the nodes and Spot nodes
 * (node-sync), the cordons waiting (uncordon), steering's mode and its pools by state (this service's own table), and
 * the version; written to the outbox, which stamps the cluster's id and name. A count whose owner does not answer is
 * null and logged; the beat still goes out, since a beat says the cluster is alive.
 */
@Injectable()
export class ClusterHeartbeatService {
  /** The counts that went missing on the last beat: a count that stays missing is warned of once, then at debug. */
  private readonly missing = new Set<string>();

  constructor(
    @Inject(KARPENTER_GATEWAY_CONFIG) private readonly config: KarpenterGatewayConfig,
    @Inject(CLUSTER_COUNT_SOURCES) private readonly sources: ClusterCountSources,
    @Inject(ClusterHeartbeatRepository) private readonly repo: ClusterHeartbeatRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  /** beat — gathers the counts and publishes one beat; undefined when the leader's fence refused the write. */
  async beat(): Promise<ClusterHeartbeat | undefined> {
    const meta = newMeta(ACTOR);
    const [nodes, cordonsWaiting, steering] = await Promise.all([this.sources.nodes(meta).catch(failed), this.sources.cordonsWaiting(meta).catch(failed), this.repo.steering()]);
    for (const [count, v] of [['nodes', nodes], ['cordons waiting', cordonsWaiting]] as const) {
      if (typeof v === 'object' && 'error' in v) {
        const again = this.missing.has(count);
        this.missing.add(count);
        this.logger[again ? 'debug' : 'warn']('cluster heartbeat without a count', { count, err: v.error });
      } else if (this.missing.delete(count)) this.logger.info('cluster heartbeat has its count again', { count });
    }
    const data = clusterHeartbeatOf({ nodes, cordonsWaiting, ...steering }, { version: NODES_MANAGER_VERSION, intervalSeconds: this.config.CLUSTER_HEARTBEAT_INTERVAL_SECONDS, mode: this.config.STEERING_MODE });
    return (await this.repo.publish(data, this.clock.now(), ACTOR)) ? data : undefined;
  }
}
