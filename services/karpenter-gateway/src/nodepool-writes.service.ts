import { Inject, Injectable } from '@nestjs/common';
import { EventTypes, type CommandMeta } from '@nodes-manager/contracts';
import { CLOCK, LOGGER, type Clock, type JsonLogger, validationFailed } from '@nodes-manager/platform';
import { KARPENTER_KUBE, KubeFailure, type KarpenterKube } from './adapters/outbound/karpenter-kube.adapter.js';
import type { NodePoolChange } from './adapters/outbound/nodepool-changes.repository.js';
import { isObject } from './domain/merge-patch.js';
import { KARPENTER_API_VERSION, type NodePool } from './domain/nodepool.types.js';
import { applyNodePoolPatch, validateNodePool, validateNodePoolPatch, type FieldError } from './domain/validate-nodepool.js';
import { NodePoolAccess } from './nodepool-access.js';

const MAX_PATCH_ATTEMPTS = 3;

const validationError = (errors: readonly FieldError[]) => validationFailed(errors.map((e) => ({ in: 'body', field: e.field || '""', message: e.message })));

/**
 * NodePoolWritesService — NodePool create, update and delete through the dynamic client. Every write is validated
 * before anything is sent (Karpenter absent: KARPENTER_NOT_INSTALLED_FOR_WRITE), and every outcome is recorded
 * ({@link NodePoolAccess}). See docs/karpenter.md.
 */
@Injectable()
export class NodePoolWritesService {
  constructor(
    @Inject(KARPENTER_KUBE) private readonly kube: KarpenterKube,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(NodePoolAccess) private readonly access: NodePoolAccess,
  ) {}

  async create(input: unknown, meta: CommandMeta): Promise<NodePool> {
    const name = isObject(input) && isObject(input.metadata) && typeof input.metadata.name === 'string' ? input.metadata.name : '(unnamed)';
    const base: Omit<NodePoolChange, 'result' | 'after'> = { nodePool: name, action: 'create', meta, dryRun: false, request: input ?? {}, before: null, now: this.clock.now() };
    return this.access.refusalsRecorded(base, async () => {
      const errors = validateNodePool(input);
      if (errors.length) throw validationError(errors);
      await this.access.requireInstalledForWrite();
      const body = { ...(input as unknown as NodePool), apiVersion: KARPENTER_API_VERSION, kind: 'NodePool' };
      const created = await this.kube.createNodePool(body).catch((err) => Promise.reject(this.access.coded(err, name)));
      await this.access.recordApplied(
        { ...base, now: this.clock.now(), after: created, result: 'applied' },
        { type: EventTypes.nodepoolCreated, data: { nodePool: name, spec: created.spec, resourceVersion: created.metadata.resourceVersion } },
      );
      this.logger.info('nodepool created', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId });
      return created;
    });
  }

  /**
   * update — a JSON merge patch of `spec.limits` / `spec.disruption` only, checked against the schema after the
   * merge, sent as a merge patch guarded by the resourceVersion it was checked against (a concurrent change
   * means re-read, re-check, re-send; at most {@link MAX_PATCH_ATTEMPTS} times).
   */
  async update(name: string, body: unknown, meta: CommandMeta): Promise<NodePool> {
    const base: Omit<NodePoolChange, 'result' | 'after' | 'before'> = { nodePool: name, action: 'update', meta, dryRun: false, request: body ?? {}, now: this.clock.now() };
    let before: NodePool | null = null;
    return this.access.refusalsRecorded({ ...base, get before() { return before; } }, async () => {
      const { patch, errors } = validateNodePoolPatch(body);
      if (!patch) throw validationError(errors);
      await this.access.requireInstalledForWrite();
      for (let attempt = 1; ; attempt++) {
        const current = await this.access.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
        before = current;
        const merged = applyNodePoolPatch(current, patch);
        if (merged.errors.length) throw validationError(merged.errors);
        try {
          const updated = await this.kube.mergePatchNodePool(name, { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: patch.spec });
          const pick = (p: NodePool) => ({ limits: p.spec.limits ?? null, disruption: p.spec.disruption ?? null });
          await this.access.recordApplied(
            { ...base, now: this.clock.now(), before: current, after: updated, result: 'applied' },
            { type: EventTypes.nodepoolUpdated, data: { nodePool: name, patch: patch.spec, before: pick(current), after: pick(updated), resourceVersion: updated.metadata.resourceVersion } },
          );
          this.logger.info('nodepool updated', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId, fields: Object.keys(patch.spec) });
          return updated;
        } catch (err) {
          if (err instanceof KubeFailure && err.status === 409 && attempt < MAX_PATCH_ATTEMPTS) {
            this.logger.debug('nodepool changed since read; re-reading', { nodePool: name, attempt });
            continue;
          }
          throw this.access.coded(err, name);
        }
      }
    });
  }

  async remove(name: string, meta: CommandMeta): Promise<{ nodePool: string; deleted: true }> {
    let before: NodePool | null = null;
    const base = { nodePool: name, action: 'delete' as const, meta, dryRun: false, request: { name }, now: this.clock.now(), get before() { return before; } };
    return this.access.refusalsRecorded(base, async () => {
      await this.access.requireInstalledForWrite();
      const current = await this.access.readPool(name, 'KARPENTER_NOT_INSTALLED_FOR_WRITE');
      before = current;
      await this.kube.deleteNodePool(name, current.metadata.uid).catch((err) => Promise.reject(this.access.coded(err, name)));
      await this.access.recordApplied(
        { ...base, before: current, now: this.clock.now(), after: null, result: 'applied' },
        { type: EventTypes.nodepoolDeleted, data: { nodePool: name, uid: current.metadata.uid ?? null } },
      );
      this.logger.info('nodepool deleted', { nodePool: name, actor: meta.actor, correlationId: meta.correlationId });
      return { nodePool: name, deleted: true as const };
    });
  }
}
