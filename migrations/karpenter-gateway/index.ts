import type { MigrationInterface } from 'typeorm';
import { KarpenterGatewayInitial1764500000000 } from './1764500000000-initial.js';
import { KarpenterGatewayConsolidationApprovals1764700000000 } from './1764700000000-consolidation-approvals.js';
import { KarpenterGatewayOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { KarpenterGatewayDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { KarpenterGatewayOutboxTraceContext1765400000000 } from './1765400000000-outbox-trace-context.js';

/** The karpenter-gateway migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [KarpenterGatewayInitial1764500000000, KarpenterGatewayConsolidationApprovals1764700000000, KarpenterGatewayOutboxClaims1764950000000, KarpenterGatewayDropInbox1765100000000, KarpenterGatewayOutboxTraceContext1765400000000];
