import type { MigrationClass } from '@nodes-manager/platform';
import { SchedulerScoringInitial1764500000000 } from './1764500000000-initial.js';

/** The scheduler-scoring migrations, in order. Imported by the service so that no build of it can leave them out. */
export const migrations: MigrationClass[] = [SchedulerScoringInitial1764500000000];
