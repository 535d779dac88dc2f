import type { MigrationInterface } from 'typeorm';
import { SpotAdvisorInitial1764500000000 } from './1764500000000-initial.js';
import { SpotAdvisorOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';
import { SpotAdvisorDropInbox1765100000000 } from './1765100000000-drop-inbox.js';
import { SpotAdvisorOutboxTraceContext1765500000000 } from './1765500000000-outbox-trace-context.js';
import { SpotAdvisorRetentionIndexes1766600000000 } from './1766600000000-retention-indexes.js';

/** The spot-advisor migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: (new () => MigrationInterface)[] = [SpotAdvisorInitial1764500000000, SpotAdvisorOutboxClaims1764950000000, SpotAdvisorDropInbox1765100000000, SpotAdvisorOutboxTraceContext1765500000000, SpotAdvisorRetentionIndexes1766600000000];
