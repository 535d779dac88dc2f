import type { MigrationInterface } from 'typeorm';
import { SchedulerScoringInitial1764500000000 } from './1764500000000-initial.js';
import { SchedulerScoringOptimizeApprovals1764700000000 } from './1764700000000-optimize-approvals.js';
import { SchedulerScoringOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { SchedulerScoringDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { SchedulerScoringOutboxTraceContext1765500000000 } from './1765500000000-outbox-trace-context.js';
import { SchedulerScoringLeaderTerms1766100000000 } from './1766100000000-leader-terms.js';

/** The scheduler-scoring migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [SchedulerScoringInitial1764500000000, SchedulerScoringOptimizeApprovals1764700000000, SchedulerScoringOutboxClaims1764950000000, SchedulerScoringDropInbox1765100000000, SchedulerScoringOutboxTraceContext1765500000000, SchedulerScoringLeaderTerms1766100000000];
