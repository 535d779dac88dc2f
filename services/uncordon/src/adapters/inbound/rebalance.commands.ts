import { Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { Commands, type CommandRequest, type InterruptionRatesQuery, type InterruptionsListQuery, type RebalancesListQuery, type RebalancesSummaryQuery } from '@nodes-manager/contracts';
import { CommandController, CommandHandler } from '@nodes-manager/platform';
import { RebalanceLedgerService } from '../../rebalance-ledger/rebalance-ledger.service.js';

/** RebalanceCommands — the rebalance ledger's commands on `nodes-manager.uncordon`. Thin: the gateway validated the query. */
@CommandController()
export class RebalanceCommands {
  constructor(@Inject(RebalanceLedgerService) private readonly ledger: RebalanceLedgerService) {}

  /** rebalances.list — the ledger, newest first; filters outcome, instanceType, zone, nodePool, from, to; keyset cursor. */
  @CommandHandler(Commands.rebalancesList)
  list(@Payload() req: CommandRequest<Partial<RebalancesListQuery>>) {
    const q = req.data ?? {};
    return this.ledger.list({ ...q, limit: q.limit ?? 50 });
  }

  /** rebalances.summary — the figures per pool, rolled up by type, zone, node pool and cluster (also asked by spot-advisor). */
  @CommandHandler(Commands.rebalancesSummary)
  summary(@Payload() req: CommandRequest<RebalancesSummaryQuery>) {
    return this.ledger.summary(req.data ?? {});
  }

  /** interruptions.list — every Spot interruption in the window, with or without a recommendation before it (steering reads it). */
  @CommandHandler(Commands.interruptionsList)
  interruptions(@Payload() req: CommandRequest<InterruptionsListQuery>) {
    return this.ledger.interruptionsList(req.data ?? {});
  }

  /** interruptions.rates — per Spot pool, interruptions per 1,000 node-hours with the Poisson interval. */
  @CommandHandler(Commands.interruptionsRates)
  rates(@Payload() req: CommandRequest<InterruptionRatesQuery>) {
    return this.ledger.interruptionRates(req.data ?? {});
  }
}
