import { ddlMigration, outboxClaimsDdl } from '@nodes-manager/platform';

/** The outbox relay's claim on a batch, so a lost database connection after a confirm republishes nothing. */
export const SpotAdvisorOutboxClaims1764950000000 = ddlMigration('SpotAdvisorOutboxClaims1764950000000', outboxClaimsDdl('spot-advisor'));
