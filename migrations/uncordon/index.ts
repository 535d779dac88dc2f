import type { MigrationInterface } from 'typeorm';
import { UncordonInitial1764500000000 } from './1764500000000-initial.js';
import { UncordonFencingPressure1764700000000 } from './1764700000000-fencing-pressure.js';
import { UncordonRebalanceLedger1764800000000 } from './1764800000000-rebalance-ledger.js';
import { UncordonApprovals1764900000000 } from './1764900000000-approvals.js';
import { UncordonOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { UncordonDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { UncordonDrainState1765300000000 } from './1765300000000-drain-state.js';
import { UncordonDisruptionPause1765400000000 } from './1765400000000-disruption-pause.js';
import { UncordonOutboxTraceContext1765500000000 } from './1765500000000-outbox-trace-context.js';
import { UncordonLeaderTerms1766100000000 } from './1766100000000-leader-terms.js';
import { UncordonSpotInterruptions1766400000001 } from './1766400000001-spot-interruptions.js';
import { UncordonRetentionIndexes1766600000000 } from './1766600000000-retention-indexes.js';

/** The uncordon migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [
  UncordonInitial1764500000000,
  UncordonFencingPressure1764700000000,
  UncordonRebalanceLedger1764800000000,
  UncordonApprovals1764900000000,
  UncordonOutboxClaims1764950000000,
  UncordonDropInbox1765100000000,
  UncordonDrainState1765300000000,
  UncordonDisruptionPause1765400000000,
  UncordonOutboxTraceContext1765500000000,
  UncordonLeaderTerms1766100000000,
  UncordonSpotInterruptions1766400000001,
  UncordonRetentionIndexes1766600000000,
];
