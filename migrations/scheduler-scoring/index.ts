import type { MigrationClass } from '@nodes-manager/platform';
import { SchedulerScoringInitial1764500000000 } from './1764500000000-initial.js';
import { SchedulerScoringOptimizeApprovals1764700000000 } from './1764700000000-optimize-approvals.js';
import { SchedulerScoringOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';

/** The scheduler-scoring migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: MigrationClass[] = [SchedulerScoringInitial1764500000000, SchedulerScoringOptimizeApprovals1764700000000, SchedulerScoringOutboxClaims1764950000000];
