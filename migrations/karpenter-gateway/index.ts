import type { MigrationInterface } from 'typeorm';
import { KarpenterGatewayInitial1764500000000 } from './1764500000000-initial.js';
import { KarpenterGatewayConsolidationApprovals1764700000000 } from './1764700000000-consolidation-approvals.js';
import { KarpenterGatewayOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { KarpenterGatewayDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { KarpenterGatewaySteering1765300000000 } from './1765300000000-steering.js';
import { KarpenterGatewayOutboxTraceContext1765500000000 } from './1765500000000-outbox-trace-context.js';
import { KarpenterGatewaySteeringStatus1766000000000 } from './1766000000000-steering-status.js';
import { KarpenterGatewayLeaderTerms1766100000000 } from './1766100000000-leader-terms.js';
import { KarpenterGatewaySnakeCaseCodes1766200000000 } from './1766200000000-snake-case-codes.js';
import { KarpenterGatewayRetentionIndexes1766600000000 } from './1766600000000-retention-indexes.js';

/** The karpenter-gateway migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [KarpenterGatewayInitial1764500000000, KarpenterGatewayConsolidationApprovals1764700000000, KarpenterGatewayOutboxClaims1764950000000, KarpenterGatewayDropInbox1765100000000, KarpenterGatewaySteering1765300000000, KarpenterGatewayOutboxTraceContext1765500000000, KarpenterGatewaySteeringStatus1766000000000, KarpenterGatewayLeaderTerms1766100000000, KarpenterGatewaySnakeCaseCodes1766200000000, KarpenterGatewayRetentionIndexes1766600000000];
