import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { EventTypes, type CommandMeta, type SteeringPassState, type SteeringRecommendations } from '@nodes-manager/contracts';
import { DATA_SOURCE, fenced, makeEvent, NOT_LOCKED, OUTBOX, withAdvisoryLock, type Outbox } from '@nodes-manager/platform';
import { type NodePoolEditPlan, type PoolHealth, type PoolHealthPrevious, type PoolHealthState, type Requirement, type SteeringRecord } from '@nodes-manager/steering';
import { poolKey } from '@nodes-manager/contracts';

export type SteeringMode = 'off' | 'plan' | 'execute';

/** PlanStatus — what became of a NodePool's plan in the last pass. */
export type PlanStatus = 'nothing_to_do' | 'planned' | 'paused' | 'outside_window' | 'awaiting_approval' | 'written' | 'conflict' | 'failed';

export interface StoredPlan {
  nodePool: string;
  mode: SteeringMode;
  plan: NodePoolEditPlan;
  status: PlanStatus;
  detail: string;
  plannedAt: Date;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** eventEvidence — the figures of a decision as `pool.health.changed` carries them. */
function eventEvidence(h: PoolHealth) {
  const e = h.evidence;
  return {
    samples: e.samples,
    interrupted: e.interrupted,
    share: e.share,
    interval95: e.interval95,
    bursts: e.bursts,
    lastInterruptionAt: iso(e.lastInterruptionAt),
    leadTimeMinutes: e.leadTimeMinutes,
    priceRatio: e.price?.ratio ?? null,
  };
}

/**
 * SteeringRepository — steering's tables (migrations/karpenter-gateway/1765300000000-steering.ts): each pool's health
 * and its transitions, what steering wrote to each NodePool, the last plans; every transition and every write with
 * its event in the same transaction (the outbox).
 */
@Injectable()
export class SteeringRepository {
  constructor(
    @Inject(DATA_SOURCE) private readonly ds: DataSource,
    @Inject(OUTBOX) private readonly outbox: Outbox,
  ) {}

  async previous(): Promise<Map<string, PoolHealthPrevious>> {
    const rows = (await this.ds.query(`SELECT pool, state, since, basis_from FROM nodes.pool_health`)) as { pool: string; state: PoolHealthState; since: Date; basis_from: Date | null }[];
    return new Map(rows.map((r) => [r.pool, { state: r.state, since: new Date(r.since), basisFrom: r.basis_from ? new Date(r.basis_from) : null }]));
  }

  async avoidEntriesSince(from: Date): Promise<Date[]> {
    const rows = (await this.ds.query(`SELECT at FROM nodes.pool_health_transitions WHERE to_state = 'avoid' AND at >= $1`, [from])) as { at: Date }[];
    return rows.map((r) => new Date(r.at));
  }

  /** saveHealth — every pool's decision; a transition also gets its row and `pool.health.changed`, in one transaction. */
  async saveHealth(health: readonly PoolHealth[], mode: SteeringMode, now: Date): Promise<number> {
    const changed = health.filter((h) => h.changed);
    await fenced(this.ds, 'pool_health', async (tx) => {
      for (const h of health) {
        await tx.query(
          `INSERT INTO nodes.pool_health (pool, instance_type, zone, state, since, basis_from, reason, sentence, evidence, restore_at, decided_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)
           ON CONFLICT (pool) DO UPDATE SET state = $4, since = $5, basis_from = $6, reason = $7, sentence = $8, evidence = $9::jsonb, restore_at = $10, decided_at = $11`,
          [poolKey(h.pool), h.pool.instanceType, h.pool.zone, h.state, h.since, h.basisFrom, h.reason, h.sentence, JSON.stringify(h.evidence), h.restoreAt, now],
        );
      }
      for (const h of changed) {
        await tx.query(
          `INSERT INTO nodes.pool_health_transitions (id, pool, from_state, to_state, at, reason, sentence, evidence) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
          [randomUUID(), poolKey(h.pool), h.from, h.state, now, h.reason, h.sentence, JSON.stringify(h.evidence)],
        );
      }
      if (changed.length > 0) {
        await this.outbox.add(
          tx,
          changed.map((h) =>
            makeEvent(
              'karpenter-gateway',
              EventTypes.poolHealthChanged,
              {
                pool: poolKey(h.pool),
                instanceType: h.pool.instanceType,
                zone: h.pool.zone,
                from: h.from,
                to: h.state,
                since: h.since.toISOString(),
                reason: h.reason,
                sentence: h.sentence,
                restoreAt: iso(h.restoreAt),
                evidence: eventEvidence(h),
                mode,
              },
              now,
              { actor: 'system:karpenter-gateway', subject: poolKey(h.pool) },
            ),
          ),
        );
      }
    });
    if (changed.length > 0) this.outbox.added();
    return changed.length;
  }

  async records(): Promise<Map<string, SteeringRecord>> {
    const rows = (await this.ds.query(`SELECT node_pool, original, added, applied, fallback_since FROM nodes.nodepool_steering`)) as {
      node_pool: string;
      original: Requirement[];
      added: Requirement[];
      applied: Requirement[];
      fallback_since: Date | null;
    }[];
    return new Map(rows.map((r) => [r.node_pool, { original: r.original, added: r.added, applied: r.applied, fallbackSince: r.fallback_since ? new Date(r.fallback_since) : null }]));
  }

  /** replacements — per NodePool, the on-demand nodes still to be replaced on its way back to Spot. */
  async replacements(): Promise<Map<string, string[]>> {
    const rows = (await this.ds.query(`SELECT node_pool, replace_nodes FROM nodes.nodepool_steering WHERE jsonb_array_length(replace_nodes) > 0`)) as { node_pool: string; replace_nodes: string[] }[];
    return new Map(rows.map((r) => [r.node_pool, r.replace_nodes]));
  }

  async setReplacements(nodePool: string, nodes: readonly string[]): Promise<void> {
    await fenced(this.ds, 'nodepool_steering', (tx) => tx.query(`UPDATE nodes.nodepool_steering SET replace_nodes = $2::jsonb WHERE node_pool = $1`, [nodePool, JSON.stringify(nodes)]));
  }

  /** recordReplacement — what the last pass asked the optimizer on the NodePool's way back to Spot, and its answer, kept with its plan. */
  async recordReplacement(nodePool: string, asked: Record<string, unknown>): Promise<void> {
    await fenced(this.ds, 'steering_plans', (tx) => tx.query(`UPDATE nodes.steering_plans SET plan = plan || jsonb_build_object('replacement', $2::jsonb) WHERE node_pool = $1`, [nodePool, JSON.stringify(asked)]));
  }

  async savePlans(plans: readonly StoredPlan[]): Promise<void> {
    await fenced(this.ds, 'steering_plans', async (tx) => {
      for (const p of plans) {
        await tx.query(
          `INSERT INTO nodes.steering_plans (node_pool, mode, plan, status, detail, planned_at) VALUES ($1, $2, $3::jsonb, $4, $5, $6)
           ON CONFLICT (node_pool) DO UPDATE SET mode = $2, plan = $3::jsonb, status = $4, detail = $5, planned_at = $6`,
          [p.nodePool, p.mode, JSON.stringify(p.plan), p.status, p.detail, p.plannedAt],
        );
      }
    });
  }

  /**
   * recordSteer — a write steering made: what it keeps for the undo (`nodepool_steering`), the change with its
   * before/after and evidence (`nodepool_changes`, action `steer`) and `nodepool.steered`, in one transaction.
   */
  async recordSteer(w: { plan: NodePoolEditPlan; resourceVersion: string; approvalId: string | null; replaceOnDemand: string[]; evidence: unknown; meta: CommandMeta; now: Date }): Promise<void> {
    const { plan, now } = w;
    await fenced(this.ds, 'nodepool_steering', async (tx) => {
      await tx.query(
        `INSERT INTO nodes.nodepool_steering (node_pool, original, added, applied, fallback_since, resource_version, updated_at, replace_nodes) VALUES ($1, $2::jsonb, $3::jsonb, $4::jsonb, $5, $6, $7, $8::jsonb)
         ON CONFLICT (node_pool) DO UPDATE SET original = $2::jsonb, added = $3::jsonb, applied = $4::jsonb, fallback_since = $5, resource_version = $6, updated_at = $7,
           replace_nodes = CASE WHEN $9 THEN $8::jsonb WHEN $5::timestamptz IS NOT NULL THEN '[]'::jsonb ELSE nodes.nodepool_steering.replace_nodes END`,
        [plan.nodePool, JSON.stringify(plan.original), JSON.stringify(plan.added), JSON.stringify(plan.after), plan.fallbackSince, w.resourceVersion, now, JSON.stringify(w.replaceOnDemand), plan.returnToSpot !== null],
      );
      await tx.query(
        `INSERT INTO nodes.nodepool_changes (id, node_pool, action, actor, correlation_id, dry_run, request, before, after, result, created_at)
         VALUES ($1, $2, 'steer', $3, $4, false, $5::jsonb, $6::jsonb, $7::jsonb, 'applied', $8)`,
        [
          randomUUID(),
          plan.nodePool,
          w.meta.actor,
          w.meta.correlationId,
          JSON.stringify({ changes: plan.changes, approvalId: w.approvalId, exclusions: plan.exclusions, heldBack: plan.heldBack, evidence: w.evidence }),
          JSON.stringify({ requirements: plan.before }),
          JSON.stringify({ requirements: plan.after, original: plan.original, added: plan.added }),
          now,
        ],
      );
      await this.outbox.add(tx, [
        makeEvent(
          'karpenter-gateway',
          EventTypes.nodepoolSteered,
          {
            nodePool: plan.nodePool,
            changes: plan.changes,
            before: plan.before,
            after: plan.after,
            original: plan.original,
            exclusions: plan.exclusions.map((e) => ({ kind: e.kind, value: e.value, covers: e.covers.map(poolKey), loses: e.loses, sentence: e.sentence })),
            fallback: plan.fallback,
            replaceOnDemand: w.replaceOnDemand,
            sentence: plan.sentence,
            resourceVersion: w.resourceVersion,
            approvalId: w.approvalId,
          },
          now,
          { actor: w.meta.actor, correlationId: w.meta.correlationId, subject: plan.nodePool },
        ),
      ]);
    });
    this.outbox.added();
  }

  /**
   * saveStatus — the steering leader's last pass, in its one row (docs/steering.md#status). A pass that waits keeps the
   * last decision's time and recommendations (null here).
   */
  async saveStatus(s: { mode: SteeringMode; state: Exclude<SteeringPassState, 'none'>; waiting: string | null; passedAt: Date; decidedAt: Date | null; recommendations: SteeringRecommendations | null }): Promise<void> {
    await fenced(this.ds, 'steering_status', (tx) =>
      tx.query(
        `INSERT INTO nodes.steering_status (id, mode, state, waiting, passed_at, decided_at, recommendations) VALUES ('fleet', $1, $2, $3, $4, $5, COALESCE($6::jsonb, '{"instanceTypes":[],"zones":[],"pools":[]}'::jsonb))
         ON CONFLICT (id) DO UPDATE SET mode = $1, state = $2, waiting = $3, passed_at = $4,
           decided_at = COALESCE($5, nodes.steering_status.decided_at), recommendations = COALESCE($6::jsonb, nodes.steering_status.recommendations)`,
        [s.mode, s.state, s.waiting, s.passedAt, s.decidedAt, s.recommendations ? JSON.stringify(s.recommendations) : null],
      ),
    );
  }

  /** lastPass — the stored last pass, or undefined before the first. */
  async lastPass(): Promise<{ mode: SteeringMode; state: Exclude<SteeringPassState, 'none'>; waiting: string | null; passedAt: Date; decidedAt: Date | null; recommendations: SteeringRecommendations } | undefined> {
    const rows = (await this.ds.query(`SELECT mode, state, waiting, passed_at AS "passedAt", decided_at AS "decidedAt", recommendations FROM nodes.steering_status WHERE id = 'fleet'`)) as {
      mode: SteeringMode;
      state: Exclude<SteeringPassState, 'none'>;
      waiting: string | null;
      passedAt: Date;
      decidedAt: Date | null;
      recommendations: SteeringRecommendations;
    }[];
    return rows[0];
  }

  async status(): Promise<{ pools: Record<string, unknown>[]; plans: StoredPlan[] }> {
    const pools = (await this.ds.query(
      `SELECT pool, instance_type AS "instanceType", zone, state, since, reason, sentence, evidence, restore_at AS "restoreAt", decided_at AS "decidedAt" FROM nodes.pool_health ORDER BY pool`,
    )) as Record<string, unknown>[];
    const plans = (await this.ds.query(`SELECT node_pool AS "nodePool", mode, plan, status, detail, planned_at AS "plannedAt" FROM nodes.steering_plans ORDER BY node_pool`)) as StoredPlan[];
    return { pools, plans };
  }

  /**
   * withSteeringLock — `fn` under the cluster-wide steering lock (transaction-scoped, `withAdvisoryLock`), or undefined
   * when another replica holds it (one pass at a time).
   */
  async withSteeringLock<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const out = await withAdvisoryLock(this.ds, 'nodes-manager.steering', () => fn(), { wait: false });
    return out === NOT_LOCKED ? undefined : out;
  }
}
