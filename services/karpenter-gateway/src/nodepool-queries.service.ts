import { Inject, Injectable } from '@nestjs/common';
import { KARPENTER_KUBE, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import { detailNodePool, summarizeNodePool, viewNodeClaim, type NodeClaimView, type NodePoolDetail, type NodePoolSummary } from './domain/nodepool-view.js';
import { NodePoolAccess } from './nodepool-access.js';

export interface ListResult<T> {
  items: T[];
  karpenterInstalled: boolean;
}

/** NodePoolQueriesService — the read-only answers: NodePools and their NodeClaims. Karpenter absent: lists answer empty. */
@Injectable()
export class NodePoolQueriesService {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(NodePoolAccess) private readonly access: NodePoolAccess,
  ) {}

  async list(): Promise<ListResult<NodePoolSummary>> {
    if (!(await this.kube.installed())) return { items: [], karpenterInstalled: false };
    try {
      const pools = await this.kube.listNodePools();
      return { items: pools.map(summarizeNodePool).sort((a, b) => a.name.localeCompare(b.name)), karpenterInstalled: true };
    } catch (err) {
      if (await this.access.vanished(err)) return { items: [], karpenterInstalled: false };
      throw this.access.coded(err);
    }
  }

  async get(name: string): Promise<NodePoolDetail> {
    const pool = await this.access.readPool(name, 'KARPENTER_NOT_INSTALLED');
    const claims = await this.kube.listNodeClaims(name).catch((err) => Promise.reject(this.access.coded(err)));
    return detailNodePool(pool, claims);
  }

  async nodeclaims(name: string): Promise<ListResult<NodeClaimView>> {
    if (!(await this.kube.installed())) return { items: [], karpenterInstalled: false };
    await this.access.readPool(name, 'KARPENTER_NOT_INSTALLED');
    try {
      const claims = await this.kube.listNodeClaims(name);
      return { items: claims.map(viewNodeClaim).sort((a, b) => a.name.localeCompare(b.name)), karpenterInstalled: true };
    } catch (err) {
      if (await this.access.vanished(err)) return { items: [], karpenterInstalled: false };
      throw this.access.coded(err);
    }
  }
}
