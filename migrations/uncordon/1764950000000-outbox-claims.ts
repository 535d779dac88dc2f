import { ddlMigration, outboxClaimsDdl } from '@nodes-manager/platform';

/** The outbox relay's claim on a batch, so a lost database connection after a confirm republishes nothing. */
export const UncordonOutboxClaims1764950000000 = ddlMigration('UncordonOutboxClaims1764950000000', outboxClaimsDdl('uncordon'));
