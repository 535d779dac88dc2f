import type { MigrationClass } from '@nodes-manager/platform';
import { SpotAdvisorInitial1764500000000 } from './1764500000000-initial.js';
import { SpotAdvisorOutboxClaims1764950000000 } from './1764950000000-outbox-claims.js';

/** The spot-advisor migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: MigrationClass[] = [SpotAdvisorInitial1764500000000, SpotAdvisorOutboxClaims1764950000000];
