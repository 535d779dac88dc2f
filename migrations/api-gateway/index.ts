import type { MigrationInterface } from 'typeorm';
import { ApiGatewayRateLimits1765400000000 } from './1765400000000-rate-limits.js';

/** The api-gateway migrations, in order: only the shared rate-limit counts (it owns no other table). */
export const migrations: (new () => MigrationInterface)[] = [ApiGatewayRateLimits1765400000000];
