import { outboxClaimsMigration } from '@nodes-manager/platform';

/** The outbox relay's claim on a batch, so a lost database connection after a confirm republishes nothing. */
export const UncordonOutboxClaims1764950000000 = outboxClaimsMigration('uncordon', 'UncordonOutboxClaims1764950000000');
