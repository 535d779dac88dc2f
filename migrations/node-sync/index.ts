import type { MigrationInterface } from 'typeorm';
import { NodeSyncInitial1764500000000 } from './1764500000000-initial.js';
import { NodeSyncOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { NodeSyncDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { NodeSyncOutboxTraceContext1765500000000 } from './1765500000000-outbox-trace-context.js';
import { NodeSyncLeaderTerms1766100000000 } from './1766100000000-leader-terms.js';
import { NodeSyncNodeLifetimes1766400000000 } from './1766400000000-node-lifetimes.js';
import { NodeSyncRetentionIndexes1766600000000 } from './1766600000000-retention-indexes.js';

/** The node-sync migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [NodeSyncInitial1764500000000, NodeSyncOutboxClaims1764950000000, NodeSyncDropInbox1765100000000, NodeSyncOutboxTraceContext1765500000000, NodeSyncLeaderTerms1766100000000, NodeSyncNodeLifetimes1766400000000, NodeSyncRetentionIndexes1766600000000];
