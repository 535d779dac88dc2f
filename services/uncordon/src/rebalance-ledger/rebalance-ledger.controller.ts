import { Inject, Injectable } from '@nestjs/common';
import { CONTROLLERS, type Controller, type Controllers, type LeaderElector } from '@nodes-manager/platform';
import type { UncordonConfig } from '../config.js';
import type { NodeChange, NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { NODE_SOURCE, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';
import { RebalanceLedgerService } from './rebalance-ledger.service.js';

/** The ledger is one pass over every node: its controller's one key. */
export const LEDGER_KEY = 'ledger';
/** A burst of node changes makes one pass, this long after the first. */
const CHANGE_DEBOUNCE_MS = 200;

/**
 * ledgerChange — a node change the ledger may have something to record from: a node added or deleted, or a change of
 * its spec (cordon, taints, providerID) or annotations (our `uncordoned-at`) — not a status heartbeat.
 */
export function ledgerChange(c: NodeChange): boolean {
  if (!c.node || !c.old) return true;
  return JSON.stringify(c.node.spec ?? {}) !== JSON.stringify(c.old.spec ?? {}) || JSON.stringify(c.node.metadata?.annotations ?? {}) !== JSON.stringify(c.old.metadata?.annotations ?? {});
}

/**
 * RebalanceLedgerController — the rebalance ledger as a controller (docs/uncordon.md#controllers): one key, `ledger`,
 * reconciled by one pass of {@link RebalanceLedgerService.pass} after each auto-uncordon pass, on ledger-relevant node
 * changes (debounced) and every scan interval, in the leader only.
 */
@Injectable()
export class RebalanceLedgerController {
  readonly controller: Controller;

  constructor(
    @Inject(UNCORDON_CONFIG) config: UncordonConfig,
    @Inject(CONTROLLERS) controllers: Controllers,
    @Inject(UNCORDON_LEADER) leader: LeaderElector,
    @Inject(NODE_SOURCE) source: NodeSource,
    @Inject(RebalanceLedgerService) ledger: RebalanceLedgerService,
  ) {
    this.controller = controllers.controller({
      name: 'rebalance-ledger',
      leader,
      ready: () => source.waitForSync(),
      listKeys: () => [LEDGER_KEY],
      resyncMs: config.SCAN_INTERVAL_SECONDS * 1000,
      reconcile: () => ledger.pass(),
    });
    source.onChange((c) => {
      if (ledgerChange(c)) this.controller.enqueueAfter(LEDGER_KEY, CHANGE_DEBOUNCE_MS);
    });
  }

  /** enqueue — one more ledger pass soon (after an auto-uncordon pass). */
  enqueue(): void {
    this.controller.enqueue(LEDGER_KEY);
  }
}
