import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CloudEvent } from '@nodes-manager/contracts';
import type { Outbox } from '@nodes-manager/platform';
import type { ProvisionArguments } from '../../domain/provisioning.js';

export type ProvisioningStatus = 'pending' | 'succeeded' | 'failed' | 'dry-run';

/** ProvisioningRecord — one row of `nodes.provisioning_requests`. */
export interface ProvisioningRecord {
  readonly id: string;
  readonly clientToken: string;
  readonly actor: string;
  readonly dryRun: boolean;
  readonly status: ProvisioningStatus;
  readonly request: ProvisionArguments;
  readonly instanceIds: readonly string[];
  readonly result: Record<string, unknown> | null;
  readonly error: Record<string, unknown> | null;
}

interface Row {
  id: string;
  client_token: string;
  actor: string;
  dry_run: boolean;
  status: ProvisioningStatus;
  request: ProvisionArguments;
  instance_ids: string[];
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
}

const toRecord = (r: Row): ProvisioningRecord => ({
  id: r.id,
  clientToken: r.client_token,
  actor: r.actor,
  dryRun: r.dry_run,
  status: r.status,
  request: r.request,
  instanceIds: r.instance_ids,
  result: r.result,
  error: r.error,
});

export interface NewProvisioning {
  readonly clientToken: string;
  readonly actor: string;
  readonly correlationId: string;
  readonly dryRun: boolean;
  readonly request: ProvisionArguments;
  readonly now: Date;
}

/**
 * ProvisioningRepository — `nodes.provisioning_requests`, keyed by client token for launches (a partial unique
 * index: dry runs hold no token). `claim` inserts or returns the existing row; the outcome is written once.
 */
export class ProvisioningRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {}

  /**
   * claim — records a launch request as `pending`, or returns the row its client token already has
   * (`created: false`), whatever its status.
   */
  async claim(p: NewProvisioning): Promise<{ record: ProvisioningRecord; created: boolean }> {
    const inserted = (await this.ds.query(
      `INSERT INTO nodes.provisioning_requests (id, client_token, actor, correlation_id, request, dry_run, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, false, 'pending', $6, $6)
       ON CONFLICT (client_token) WHERE NOT dry_run DO NOTHING
       RETURNING *`,
      [randomUUID(), p.clientToken, p.actor, p.correlationId, JSON.stringify(p.request), p.now.toISOString()],
    )) as Row[];
    if (inserted[0]) return { record: toRecord(inserted[0]), created: true };
    const existing = (await this.ds.query(`SELECT * FROM nodes.provisioning_requests WHERE client_token = $1 AND NOT dry_run`, [
      p.clientToken,
    ])) as Row[];
    if (!existing[0]) throw new Error(`provisioning request with client token ${p.clientToken} vanished`);
    return { record: toRecord(existing[0]), created: false };
  }

  /** recordDryRun — a dry run's outcome, as its own row (it starts nothing and holds no token). */
  async recordDryRun(p: NewProvisioning, outcome: { result: Record<string, unknown> } | { error: Record<string, unknown> }): Promise<string> {
    const id = randomUUID();
    await this.ds.query(
      `INSERT INTO nodes.provisioning_requests (id, client_token, actor, correlation_id, request, dry_run, status, result, error, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, true, $6, $7, $8, $9, $9)`,
      [
        id,
        p.clientToken,
        p.actor,
        p.correlationId,
        JSON.stringify(p.request),
        'result' in outcome ? 'dry-run' : 'failed',
        'result' in outcome ? JSON.stringify(outcome.result) : null,
        'error' in outcome ? JSON.stringify(outcome.error) : null,
        p.now.toISOString(),
      ],
    );
    return id;
  }

  /**
   * succeed — marks the launch succeeded with its result and adds its event to the outbox, in one transaction;
   * only the first writer of a success does both (a concurrent retry that got the same reservation from EC2 adds
   * no second event). Returns whether this call wrote it.
   */
  async succeed(id: string, instanceIds: readonly string[], result: Record<string, unknown>, now: Date, event: CloudEvent): Promise<boolean> {
    const wrote = await this.ds.transaction(async (tx) => {
      const rows = (await tx.query(
        `UPDATE nodes.provisioning_requests
            SET status = 'succeeded', instance_ids = $2, result = $3, error = NULL, updated_at = $4
          WHERE id = $1 AND status <> 'succeeded'
          RETURNING id`,
        [id, [...instanceIds], JSON.stringify(result), now.toISOString()],
      )) as unknown[];
      if (rows.length === 0) return false;
      await this.outbox.add(tx, [event]);
      return true;
    });
    if (wrote) this.outbox.added();
    return wrote;
  }

  /** fail — records why a launch failed (unless it already succeeded); the token may be retried. */
  async fail(id: string, error: Record<string, unknown>, now: Date): Promise<void> {
    await this.ds.query(
      `UPDATE nodes.provisioning_requests SET status = 'failed', error = $2, updated_at = $3 WHERE id = $1 AND status <> 'succeeded'`,
      [id, JSON.stringify(error), now.toISOString()],
    );
  }

  /** get — one row by id. */
  async get(id: string): Promise<ProvisioningRecord | undefined> {
    const rows = (await this.ds.query(`SELECT * FROM nodes.provisioning_requests WHERE id = $1`, [id])) as Row[];
    return rows[0] && toRecord(rows[0]);
  }
}
