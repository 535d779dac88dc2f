import { Inject, Injectable } from '@nestjs/common';
import type * as k8s from '@kubernetes/client-node';
import { EventTypes, PRESSURE_LABEL, PRESSURE_MODES, PressureReliefOutcome, type NodePressure, type PressureMode, type PsiResource } from '@nodes-manager/contracts';
import { CLOCK, LOGGER, makeEvent, METRICS, PAUSE_GATE, type PauseGate, type Clock, type JsonLogger, type LeaderElector, type Metrics } from '@nodes-manager/platform';
import { effectiveResources, MIRROR_ANNOTATION, podQos } from '@nodes-manager/kube';
import type { UncordonConfig } from '../config.js';
import { decideRelief, nextHighSamples, psiFromSummary, type PodMemory } from './domain/decide-pressure.js';
import type { KubeFencing } from '../adapters/outbound/kube-fencing.adapter.js';
import type { KubeNodes } from '../adapters/outbound/kube-nodes.adapter.js';
import type { NodeSource } from '../adapters/outbound/node-source.adapter.js';
import { pressureView, type PressureRepository, type PressureRow } from './pressure.repository.js';
import { KUBE_FENCING, KUBE_NODES, NODE_SOURCE, PRESSURE_REPOSITORY, UNCORDON_CONFIG, UNCORDON_LEADER } from '../tokens.js';

const ACTOR = 'system:uncordon';
/** Scaling-event action of a relief attempt. */
export const RELIEF_ACTION = 'pressure.relief';

const modeOf = (n: k8s.V1Node): PressureMode | undefined => {
  const v = n.metadata?.labels?.[PRESSURE_LABEL];
  return (PRESSURE_MODES as readonly string[]).includes(v ?? '') ? (v as PressureMode) : undefined;
};

/**
 * PressureService — reads Pressure Stall Information of nodes that opted in (`nodes-manager/pressure: watch` or
 * `relieve`) from the kubelet's Summary API every PRESSURE_INTERVAL_SECONDS, at most PRESSURE_CONCURRENCY at once
 * (the pressure controller: one key per node),
 * keeps the last reading in `node_pressure`, and relieves a `relieve` node whose memory `full avg10` stayed above
 * PRESSURE_MEMORY_FULL_THRESHOLD for PRESSURE_SUSTAIN_SAMPLES readings: one eviction (Eviction API, so PDBs hold)
 * of the pod using most memory above its request, at most one per node per interval (docs/pressure.md).
 */
@Injectable()
export class PressureService {
  private readonly reliefs;
  private readonly psiGauge;

  constructor(
    @Inject(UNCORDON_CONFIG) private readonly config: UncordonConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    @Inject(NODE_SOURCE) private readonly source: NodeSource,
    @Inject(KUBE_FENCING) private readonly kubelet: KubeFencing,
    @Inject(KUBE_NODES) private readonly kube: KubeNodes,
    @Inject(PRESSURE_REPOSITORY) private readonly repo: PressureRepository,
    @Inject(UNCORDON_LEADER) private readonly leader: LeaderElector,
    @Inject(METRICS) metrics: Metrics,
    @Inject(PAUSE_GATE) private readonly pause: PauseGate,
  ) {
    this.reliefs = metrics.counter('nodes_manager_pressure_reliefs_total', 'Pressure relief attempts by outcome', ['outcome']);
    this.psiGauge = metrics.gauge('nodes_manager_node_memory_psi_full_avg10', 'Memory PSI full avg10 (percent) of nodes opted in to pressure watching', ['node']);
  }

  async list(node?: string): Promise<NodePressure[]> {
    return (await this.repo.list(node)).map(pressureView);
  }

  /** memoryOf — the last memory PSI of the named nodes, for auto-uncordon's pressure hold. */
  async memoryOf(names: readonly string[]): Promise<Map<string, PsiResource | null>> {
    const rows = await this.repo.get(names);
    return new Map([...rows].map(([k, r]) => [k, r.status === 'ok' ? r.memory : null]));
  }

  /**
   * nodesToRead — the pressure controller's keys: every opted-in node of the synced cache, and every node with a
   * reading (one that stopped opting in, or went, has its reading forgotten by its reconcile). Nothing before sync.
   */
  async nodesToRead(): Promise<string[]> {
    const opted = this.source.list().filter((n) => modeOf(n) !== undefined).map((n) => n.metadata?.name ?? '');
    return [...new Set([...opted, ...(await this.repo.names())])];
  }

  /**
   * read — one node's turn (the leader only, on a synced cache): an opted-in node is sampled (and relieved when its
   * pressure held); a node that no longer opts in, or went, loses its reading. A failed sample is logged and tried
   * again at the next interval.
   */
  async read(name: string): Promise<void> {
    const node = this.source.get(name);
    const mode = node ? modeOf(node) : undefined;
    if (!node || !mode) return this.repo.forget(name);
    const previous = await this.repo.get([name]);
    await this.sample(node, mode, previous.get(name)).catch((err) => this.logger.warn('pressure sample failed', { node: name, err: (err as Error).message }));
  }

  private async sample(node: k8s.V1Node, mode: PressureMode, prev: PressureRow | undefined): Promise<void> {
    const name = node.metadata?.name ?? '';
    const now = this.clock.now();
    let summary: unknown;
    try {
      summary = await this.kubelet.summary(name);
    } catch (err) {
      this.logger.debug('summary API not reachable', { node: name, err: (err as Error).message });
      await this.repo.save({ node: name, mode, status: 'unreachable', cpu: null, memory: null, io: null, highSamples: 0, sampledAt: now, lastRelief: prev?.lastRelief ?? null });
      return;
    }
    const psi = psiFromSummary(summary);
    const threshold = this.config.PRESSURE_MEMORY_FULL_THRESHOLD;
    const highSamples = nextHighSamples(prev?.highSamples ?? 0, psi.memory, threshold);
    const row: PressureRow = {
      node: name,
      mode,
      status: psi.cpu || psi.memory || psi.io ? 'ok' : 'unknown',
      cpu: psi.cpu,
      memory: psi.memory,
      io: psi.io,
      highSamples,
      sampledAt: now,
      lastRelief: prev?.lastRelief ?? null,
    };
    if (psi.memory) this.psiGauge.set({ service: 'uncordon', node: name }, psi.memory.full.avg10);
    const lastReliefAt = row.lastRelief ? new Date(row.lastRelief.at) : null;
    if (mode === 'relieve' && highSamples >= this.config.PRESSURE_SUSTAIN_SAMPLES) {
      const pods: PodMemory[] = (await this.kube.podsOnNode(name))
        .filter((p) => p.status?.phase === 'Running' || p.status?.phase === 'Pending' || p.status?.phase === undefined)
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => {
          const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
          const requestBytes = effectiveResources(p.spec as never).memoryBytes;
          return {
            namespace: p.metadata?.namespace ?? 'default',
            name: p.metadata?.name ?? '',
            qosClass: podQos(p),
            daemonSet: (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'DaemonSet'),
            mirror: p.metadata?.annotations?.[MIRROR_ANNOTATION] !== undefined,
            workingSetBytes: psi.podMemory.get(key) ?? 0,
            requestBytes,
          };
        });
      const d = decideRelief({
        mode,
        highSamples,
        sustainSamples: this.config.PRESSURE_SUSTAIN_SAMPLES,
        lastReliefAt,
        now,
        intervalMs: this.config.PRESSURE_INTERVAL_SECONDS * 1000,
        pods,
      });
      // The fleet-wide pause holds relief (one eviction: nothing running to stop); sampling goes on (docs/pause.md).
      const admitted = d.action === 'evict' ? await this.pause.admit('pressure_relief') : undefined;
      if (admitted && !admitted.admit) this.logger.info('pressure relief held: disruptive actions paused', { node: name, reason: admitted.detail });
      if (d.action === 'evict' && admitted?.admit && (await this.leader.stillLeader())) {
        const r = await this.kube.evict(d.pod.namespace, d.pod.name);
        const outcome =
          r.outcome === 'accepted' || r.outcome === 'not-found'
            ? PressureReliefOutcome.EVICTED
            : r.outcome === 'too-many-requests'
              ? PressureReliefOutcome.PDB_BLOCKED
              : PressureReliefOutcome.FAILED;
        const pod = `${d.pod.namespace}/${d.pod.name}`;
        const message =
          outcome === PressureReliefOutcome.EVICTED
            ? `evicted ${pod} (${d.pod.qosClass}, ${Math.round(d.excessBytes / 2 ** 20)} MiB above its request) to relieve memory pressure`
            : outcome === PressureReliefOutcome.PDB_BLOCKED
              ? `a PodDisruptionBudget refused the eviction of ${pod}: ${r.message ?? ''}`.trim()
              : `the eviction of ${pod} failed: ${r.message ?? 'unknown error'}`;
        row.lastRelief = { pod, at: now.toISOString(), outcome };
        await this.repo.recordRelief(
          {
            nodeName: name,
            action: RELIEF_ACTION,
            decision: outcome,
            reason: outcome.toUpperCase(),
            actor: ACTOR,
            evidence: { pod, qosClass: d.pod.qosClass, workingSetBytes: d.pod.workingSetBytes, requestBytes: d.pod.requestBytes, memoryFullAvg10: psi.memory?.full.avg10 ?? null, highSamples, message },
            createdAt: now,
          },
          makeEvent(
            'uncordon',
            EventTypes.nodePressureRelieved,
            { node: name, mode, pod, outcome, memoryFullAvg10: psi.memory?.full.avg10 ?? 0, workingSetBytes: d.pod.workingSetBytes, requestBytes: d.pod.requestBytes, qosClass: d.pod.qosClass, message },
            now,
            { actor: ACTOR, subject: name },
          ),
        );
        this.reliefs.inc({ service: 'uncordon', outcome });
        this.logger.info('pressure relief', { node: name, pod, outcome });
        await this.kube.nodeEvent(node, 'PressureRelief', message, this.clock.now(), 'Warning').catch(() => undefined);
      }
    }
    await this.repo.save(row);
  }
}
