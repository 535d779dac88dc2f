import { parseProviderId } from '@nodes-manager/kube';
import type { Ec2Sim } from '../ec2/ec2-sim.js';
import { Ec2ApiError } from '../ec2/query.js';
import { hash32 } from '../ec2/spot-prices.js';
import { k8sTime, type KubeApi, type SimTimers, type WriteContext } from '../kube/api/index.js';
import { ApiError } from '../kube/errors.js';
import { byId, type KubeObject } from '../kube/resources.js';
import { SimKarpenterReads, type PassView } from './sim-karpenter-reads.js';
import { allowedDisruptions } from './budgets.js';
import { DISRUPTED_TAINT, planInterruption, type InterruptionKind, type KarpenterEvent } from './interruption.js';
import { chooseOffering, orderNodePools, type Offering } from './offerings.js';
import { requirementsDrifted } from './requirements.js';
import {
  conditionOf, DO_NOT_DISRUPT, eventObject, fitsIn, isTrue, launchedLabels, nodeAdmits, nodeClaimObject, nodeObject, nodeRoom,
  NODEPOOL_LABEL, offeringsFor, poolAdmits, poolRequirements, podNeed, reschedulable, withCondition, withoutCondition, type Need,
} from './sim-karpenter-objects.js';
import { UNFULFILLABLE_CAPACITY_CODES, UnavailableOfferings } from './unavailable-offerings.js';

const NODES = byId('/nodes');
const PODS = byId('/pods');
const EVENTS = byId('/events');
const NODECLAIMS = byId('karpenter.sh/nodeclaims');

export interface SimKarpenterOptions {
  readonly api: KubeApi;
  readonly ec2: Ec2Sim;
  readonly clock: () => Date;
  /** Where passes are timed (a FakeClock's in tests); real timers when absent. */
  readonly timers?: SimTimers;
  /** Between passes; Karpenter's disruption controller polls every 10 s. Default 10 s. */
  readonly intervalMs?: number;
  /** From launch to a registered, initialized Node. Default 30 s. */
  readonly registrationMs?: number;
}

/** SimKarpenterStats — what the controller did since it started. */
export interface SimKarpenterStats {
  launched: number;
  insufficientCapacityErrors: number;
  driftedMarked: number;
  driftReplacements: number;
  interruptionMessages: number;
  nodeClaimsDeleted: number;
  podsEvicted: number;
}


interface Command {
  readonly candidate: string;
  readonly replacement?: string;
}

/**
 * SimKarpenter — Karpenter's controllers where steering and the ledger depend on them, over the simulator's API
 * server and EC2, on its clock: provisioning by NodePool weight and price-capacity-optimized offerings with the
 * unavailable-offerings cache; requirements drift; the disruption controller's drift replacement (replacement first,
 * then drain, paced by budgets, respecting PDBs and `karpenter.sh/do-not-disrupt`); native interruption handling; and
 * the termination controller's taint and drain. One `reconcile()` is one pass of them all. docs/karpenter-simulator.md.
 */
export class SimKarpenter extends SimKarpenterReads {
  readonly unavailableOfferings: UnavailableOfferings;
  readonly stats: SimKarpenterStats = { launched: 0, insufficientCapacityErrors: 0, driftedMarked: 0, driftReplacements: 0, interruptionMessages: 0, nodeClaimsDeleted: 0, podsEvicted: 0 };
  private readonly commands = new Map<string, Command>();
  private readonly blocked = new Set<string>();
  private timer?: { cancel(): void };
  private counter = 0;

  constructor(protected readonly o: SimKarpenterOptions) {
    super(o.api);
    this.unavailableOfferings = new UnavailableOfferings(o.clock);
  }

  /** start — a pass now and every `intervalMs` after; from now a NodeClaim's DELETE waits for its termination finalizer. */
  start(): void {
    if (this.timer) return;
    this.o.api.finalizedKinds.add('NodeClaim');
    const every = this.o.intervalMs ?? 10_000;
    const loop = (): void => {
      this.reconcile();
      this.timer = this.schedule(every, loop);
    };
    this.timer = this.schedule(0, loop);
  }

  stop(): void {
    this.o.api.finalizedKinds.delete('NodeClaim');
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** reconcile — one pass: interruptions, instances gone, registration, provisioning, drift, disruption, termination. */
  reconcile(): void {
    const now = this.o.clock();
    this.handleInterruptions(now);
    this.collectGone(now);
    this.register(now);
    this.terminate(now);
    this.provision(now);
    this.markDrift(now);
    this.disrupt(now);
  }

  // ---- interruption (aws/karpenter-provider-aws pkg/controllers/interruption) ----------------------------------

  private handleInterruptions(now: Date): void {
    for (const msg of this.o.ec2.receiveInterruptionMessages()) {
      this.stats.interruptionMessages++;
      const claim = this.claims().find((c) => parseProviderId(c.status?.providerID)?.instanceId === msg.instanceId);
      if (!claim) continue;
      const node = this.nodeOf(claim);
      const plan = planInterruption(msg.kind as InterruptionKind, { hasNode: node !== undefined, deleting: claim.metadata.deletionTimestamp !== undefined });
      this.record(plan.notify, claim, node, now);
      const labels = claim.metadata.labels ?? {};
      if (plan.markUnavailable) this.unavailableOfferings.markUnavailable(labels['node.kubernetes.io/instance-type'], labels['topology.kubernetes.io/zone'], 'spot', 'spot_interrupted');
      if (plan.deleteNodeClaim) {
        this.markDeleting(claim, now);
        this.record(plan.onDelete, claim, node, now);
      }
    }
  }

  /** collectGone — NodeClaims whose instance is gone are removed with their Node (Karpenter's garbage collection). */
  private collectGone(now: Date): void {
    for (const claim of this.claims()) {
      const id = parseProviderId(claim.status?.providerID)?.instanceId;
      const state = id ? this.o.ec2.instance(id)?.state : undefined;
      if (state !== 'shutting-down' && state !== 'terminated') continue;
      const node = this.nodeOf(claim);
      if (node) {
        for (const pod of this.podsOn(node.metadata.name)) {
          this.o.api.delete(PODS, pod.metadata.namespace, pod.metadata.name, this.ctx(now), { gracePeriodSeconds: 0 });
          this.recreate(pod, now);
        }
        this.o.api.delete(NODES, '', node.metadata.name, this.ctx(now));
      }
      this.removeClaim(claim);
    }
  }

  // ---- launch and registration (pkg/controllers/nodeclaim/lifecycle) -------------------------------------------

  /**
   * launch — creates a NodeClaim of `pool` and its instance: the offering chosen among those that fit `need`; an
   * insufficient-capacity error marks the offering unavailable and the next is tried. Undefined when none launches.
   */
  private launch(pool: KubeObject, need: Need, now: Date, nominated: readonly KubeObject[]): KubeObject | undefined {
    const reqs = poolRequirements(pool);
    const offerings = offeringsFor(reqs, this.o.ec2.zones, need, (t, z) => this.o.ec2.spotPrice(t, z), (t, z) => this.o.ec2.spotCapacity(t, z));
    for (;;) {
      const choice = chooseOffering(offerings, reqs, this.unavailableOfferings);
      if (!choice.offering) return undefined;
      const offering: Offering = choice.offering;
      try {
        const instance = this.o.ec2.launch({ instanceType: offering.instanceType, zone: offering.zone, capacityType: offering.capacityType, tags: [{ key: 'karpenter.sh/nodepool', value: pool.metadata.name }] });
        const name = `${pool.metadata.name}-${(hash32('nodeclaim', ++this.counter, now.getTime()) % 36 ** 5).toString(36).padStart(5, '0')}`;
        const draft = nodeClaimObject(name, pool);
        draft.metadata.labels = launchedLabels(draft, offering);
        if (nominated.length) draft.metadata.annotations['sim.nodes-manager/nominated'] = nominated.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(',');
        const created = this.o.api.create(NODECLAIMS, '', draft, this.ctx(now));
        const status = {
          providerID: `aws:///${offering.zone}/${instance.instanceId}`,
          imageID: instance.imageId,
          conditions: [{ type: 'Launched', status: 'True', reason: 'Launched', message: '', lastTransitionTime: k8sTime(now) }],
        };
        this.stats.launched++;
        return this.o.api.patch(NODECLAIMS, '', created.metadata.name, 'merge', { status }, this.ctx(now), 'status');
      } catch (e) {
        if (!(e instanceof Ec2ApiError) || !UNFULFILLABLE_CAPACITY_CODES.includes(e.code)) throw e;
        this.stats.insufficientCapacityErrors++;
        this.unavailableOfferings.markUnavailable(offering.instanceType, offering.zone, offering.capacityType, e.code);
      }
    }
  }

  /** register — a launched NodeClaim `registrationMs` old gets its Node (Ready, initialized) and its nominated pods. */
  private register(now: Date): void {
    const after = this.o.registrationMs ?? 30_000;
    for (const claim of this.claims()) {
      const launched = conditionOf(claim, 'Launched');
      if (launched?.status !== 'True' || isTrue(claim, 'Registered') || claim.metadata.deletionTimestamp) continue;
      if (now.getTime() - Date.parse(launched.lastTransitionTime) < after) continue;
      const ip = parseProviderId(claim.status.providerID)?.instanceId;
      const instance = ip ? this.o.ec2.instance(ip) : undefined;
      const name = `ip-${(instance?.privateIpAddress ?? '10.2.0.0').replace(/\./g, '-')}.ec2.internal`;
      const node = this.o.api.create(NODES, '', nodeObject(claim, name, now), this.ctx(now));
      let conditions = claim.status.conditions;
      for (const type of ['Registered', 'Initialized', 'Ready']) conditions = withCondition({ status: { conditions } } as KubeObject, type, 'True', type, '', now);
      this.o.api.patch(NODECLAIMS, '', claim.metadata.name, 'merge', { status: { nodeName: node.metadata.name, capacity: node.status.capacity, allocatable: node.status.allocatable, conditions } }, this.ctx(now), 'status');
      for (const key of String(claim.metadata.annotations?.['sim.nodes-manager/nominated'] ?? '').split(',').filter(Boolean)) {
        const [ns, pod] = key.split('/');
        const p = this.o.api.store.getObject(PODS, ns!, pod!);
        if (p && !p.spec?.nodeName && !p.metadata.deletionTimestamp) this.bind(p, node.metadata.name, now);
      }
    }
  }

  // ---- provisioning (pkg/controllers/provisioning) -----------------------------------------------------------

  /**
   * provision — pending pods go to a Ready node with room that admits them (kube-scheduler's part, which the
   * simulator plays); the rest are packed onto new NodeClaims of the first NodePool, by weight, that admits them and
   * can launch. Pods already nominated to a NodeClaim that is still registering wait for it.
   */
  private provision(now: Date): void {
    const nominated = new Set(this.claims().filter((c) => !isTrue(c, 'Registered')).flatMap((c) => String(c.metadata.annotations?.['sim.nodes-manager/nominated'] ?? '').split(',')));
    const pending = [...this.o.api.store.entries(PODS)]
      .filter((e) => !e.fields['spec.nodeName'])
      .map((e) => this.parsed('pod', e))
      .filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && !nominated.has(`${p.metadata.namespace}/${p.metadata.name}`));
    if (pending.length === 0) return;
    const view = this.snapshot();
    const nodes = view.nodes.filter((n) => n.status?.conditions?.some((c: KubeObject) => c.type === 'Ready' && c.status === 'True'));
    const room = new Map(nodes.map((n) => [n.metadata.name as string, nodeRoom(n, view.byNode.get(n.metadata.name) ?? [])]));
    const unplaced: KubeObject[] = [];
    for (const pod of pending) {
      const need = podNeed([pod]);
      const node = nodes.find((n) => fitsIn(need, room.get(n.metadata.name)!) && nodeAdmits(n, pod));
      if (!node) {
        unplaced.push(pod);
        continue;
      }
      this.bind(pod, node.metadata.name, now);
      const r = room.get(node.metadata.name)!;
      room.set(node.metadata.name, { cpuMilli: r.cpuMilli - need.cpuMilli, memoryBytes: r.memoryBytes - need.memoryBytes, gpu: r.gpu - need.gpu, pods: r.pods - 1 });
    }
    const pools = orderNodePools(this.pools() as (KubeObject & { metadata: { name: string } })[]);
    let rest = unplaced;
    while (rest.length > 0) {
      const pod = rest[0]!;
      const done = new Set<KubeObject>([pod]); // a pod no NodePool can launch for stays pending
      // Karpenter tries the NodePools by weight; a lower one only when the higher ones cannot launch the pod.
      for (const pool of pools.filter((p) => poolAdmits(p, pod))) {
        const placed = this.launchFor(pool, rest.filter((p) => poolAdmits(pool, p)), now);
        for (const p of placed) done.add(p);
        if (placed.includes(pod)) break;
      }
      rest = rest.filter((p) => !done.has(p));
    }
  }

  /** launchFor — NodeClaims of `pool` for `pods`, packed greedily (up to 30 a node, within the largest type allowed); the pods placed. */
  private launchFor(pool: KubeObject, pods: readonly KubeObject[], now: Date): KubeObject[] {
    const placed: KubeObject[] = [];
    let remaining = [...pods];
    while (remaining.length > 0) {
      const group: KubeObject[] = [];
      for (const p of remaining) {
        if (group.length === 0 || offeringsFor(poolRequirements(pool), this.o.ec2.zones, podNeed([...group, p]), () => 0, () => 1).length > 0) group.push(p);
        if (group.length >= 30) break;
      }
      if (!this.launch(pool, podNeed(group), now, group)) return placed;
      placed.push(...group);
      remaining = remaining.filter((p) => !group.includes(p));
    }
    return placed;
  }

  // ---- drift (pkg/controllers/nodeclaim/disruption/drift.go) --------------------------------------------------

  private markDrift(now: Date): void {
    const pools = new Map(this.pools().map((p) => [p.metadata.name as string, p]));
    for (const claim of this.claims()) {
      if (!isTrue(claim, 'Launched') || claim.metadata.deletionTimestamp) continue;
      const pool = pools.get(claim.metadata.labels?.[NODEPOOL_LABEL]);
      if (!pool) continue;
      const drift = requirementsDrifted(claim.metadata.labels ?? {}, pool.spec?.template?.spec?.requirements ?? []);
      const has = conditionOf(claim, 'Drifted');
      if (drift.drifted && has?.status !== 'True') {
        this.stats.driftedMarked++;
        this.patchConditions(claim, withCondition(claim, 'Drifted', 'True', drift.reason, drift.reason, now), now);
      } else if (!drift.drifted && has) {
        this.patchConditions(claim, withoutCondition(claim, 'Drifted'), now);
      }
    }
  }

  // ---- disruption by drift (pkg/controllers/disruption/drift.go, queue.go, helpers.go) ------------------------

  private disrupt(now: Date): void {
    for (const [name, cmd] of [...this.commands]) {
      const candidate = this.claim(cmd.candidate);
      const replacement = cmd.replacement ? this.claim(cmd.replacement) : undefined;
      if (!candidate) this.commands.delete(name);
      else if (!cmd.replacement || (replacement && isTrue(replacement, 'Initialized'))) {
        this.markDeleting(candidate, now);
        this.commands.delete(name);
        this.stats.driftReplacements++;
      } else if (!replacement) {
        // The replacement vanished before it initialized: undo the taint, as the queue does on failure.
        this.untaint(candidate, now);
        this.commands.delete(name);
      }
    }
    const claims = this.claims();
    const pools = new Map(this.pools().map((p) => [p.metadata.name as string, p]));
    const candidates = claims
      .filter((c) => isTrue(c, 'Drifted') && isTrue(c, 'Initialized') && !c.metadata.deletionTimestamp && !this.commands.has(c.metadata.name))
      .sort((a, b) => Date.parse(conditionOf(a, 'Drifted')!.lastTransitionTime) - Date.parse(conditionOf(b, 'Drifted')!.lastTransitionTime));
    const view = this.snapshot();
    const movable = new Map(candidates.map((c) => [c.metadata.name as string, (view.byNode.get(c.status?.nodeName) ?? []).filter(reschedulable)]));
    const budgets = new Map<string, number>();
    const pdbs = new Map<string, KubeObject[]>();
    const ordered = [...candidates.filter((c) => movable.get(c.metadata.name)!.length === 0), ...candidates.filter((c) => movable.get(c.metadata.name)!.length > 0)];
    for (const candidate of ordered) {
      const pool = pools.get(candidate.metadata.labels?.[NODEPOOL_LABEL]);
      if (!pool) continue;
      if (!budgets.has(pool.metadata.name)) budgets.set(pool.metadata.name, this.budgetFor(pool, claims, view, now));
      if (budgets.get(pool.metadata.name)! <= 0) continue;
      const node = this.nodeOf(candidate);
      if (!node) continue;
      const blockedBy = this.blockedReason(node, movable.get(candidate.metadata.name)!, pdbs);
      if (blockedBy) {
        this.recordOnce(candidate, node, blockedBy, now);
        continue;
      }
      this.taint(node, now);
      this.patchConditions(candidate, withCondition(candidate, 'DisruptionReason', 'True', 'Drifted', 'Drifted', now), now);
      const pods = movable.get(candidate.metadata.name)!;
      if (pods.length === 0) {
        this.commands.set(candidate.metadata.name, { candidate: candidate.metadata.name });
        return;
      }
      const replacement = this.launch(pool, podNeed(pods), now, []);
      if (!replacement) {
        this.untaint(candidate, now);
        this.recordOnce(candidate, node, 'no offering of the NodePool can take its pods', now);
        continue;
      }
      this.commands.set(candidate.metadata.name, { candidate: candidate.metadata.name, replacement: replacement.metadata.name });
      return; // a drift command holds one candidate; the next is computed on the next pass
    }
  }

  /** budgetFor — `BuildDisruptionBudgetMapping` for Drifted: the pool's initialized nodes, less those disrupting. */
  private budgetFor(pool: KubeObject, claims: readonly KubeObject[], view: PassView, now: Date): number {
    const mine = claims.filter((c) => c.metadata.labels?.[NODEPOOL_LABEL] === pool.metadata.name && isTrue(c, 'Initialized') && !isTrue(c, 'InstanceTerminating'));
    const disrupting = mine.filter((c) => {
      const node = view.nodeByName.get(c.status?.nodeName);
      const ready = node?.status?.conditions?.some((x: KubeObject) => x.type === 'Ready' && x.status === 'True');
      return !ready || c.metadata.deletionTimestamp !== undefined || this.commands.has(c.metadata.name);
    }).length;
    return allowedDisruptions(pool, 'Drifted', { nodes: mine.length, disrupting }, now).allowed;
  }

  /** blockedReason — `ValidateNodeDisruptable` and `ValidatePodsDisruptable`: the annotation, then PDBs. */
  private blockedReason(node: KubeObject, pods: readonly KubeObject[], pdbs: Map<string, KubeObject[]>): string | undefined {
    if (node.metadata.annotations?.[DO_NOT_DISRUPT] === 'true') return `disruption is blocked through the "${DO_NOT_DISRUPT}" annotation`;
    const held = pods.find((p) => p.metadata.annotations?.[DO_NOT_DISRUPT] === 'true');
    if (held) return `pod ${held.metadata.namespace}/${held.metadata.name} has "${DO_NOT_DISRUPT}" annotation`;
    for (const p of pods) {
      const pdb = this.pdbsOf(p, pdbs).find((b) => (b.status?.disruptionsAllowed ?? 0) <= 0);
      if (pdb) return `pdb ${pdb.metadata.namespace}/${pdb.metadata.name} prevents pod evictions`;
    }
    return undefined;
  }

  // ---- termination (kubernetes-sigs/karpenter pkg/controllers/node/termination) ------------------------------

  /** terminate — deleting NodeClaims: taint, evict what may go (PDBs, do-not-disrupt), then Node, instance, NodeClaim. */
  private terminate(now: Date): void {
    const evicted: KubeObject[] = [];
    for (const claim of this.claims()) {
      if (!claim.metadata.deletionTimestamp) continue;
      const node = this.nodeOf(claim);
      if (node) {
        this.taint(node, now);
        const left = this.podsOn(node.metadata.name).filter(reschedulable);
        for (const pod of left) {
          if (pod.metadata.deletionTimestamp || pod.metadata.annotations?.[DO_NOT_DISRUPT] === 'true') continue;
          try {
            this.o.api.evict(pod.metadata.namespace, pod.metadata.name, {} as KubeObject, this.ctx(now));
            this.stats.podsEvicted++;
            evicted.push(pod);
          } catch (e) {
            if (!(e instanceof ApiError) || e.code !== 429) throw e;
          }
        }
        if (this.podsOn(node.metadata.name).some(reschedulable)) continue;
        this.o.api.delete(NODES, '', node.metadata.name, this.ctx(now));
      }
      const id = parseProviderId(claim.status?.providerID)?.instanceId;
      if (id && this.o.ec2.instance(id)) this.o.ec2.terminate(id);
      this.removeClaim(claim);
    }
    // Recreated after the evictions, not between them: each new pod re-sorts the store's pod keys for the next eviction's PDB scan.
    for (const pod of evicted) this.recreate(pod, now);
  }

  // ---- helpers ------------------------------------------------------------------------------------------------

  private ctx(now: Date): WriteContext {
    return { manager: 'karpenter', now };
  }

  private schedule(ms: number, fn: () => void): { cancel(): void } {
    if (this.o.timers) return this.o.timers.setTimer(ms, fn);
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  }

  private bind(pod: KubeObject, node: string, now: Date): void {
    this.o.api.patch(PODS, pod.metadata.namespace, pod.metadata.name, 'merge', { spec: { nodeName: node } }, { manager: 'kube-scheduler', now });
    this.o.api.patch(PODS, pod.metadata.namespace, pod.metadata.name, 'merge', { status: { phase: 'Running', startTime: k8sTime(now), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: k8sTime(now) }] } }, { manager: 'kubelet', now }, 'status');
  }

  /** recreate — the owning workload controller's new pod for one evicted (a ReplicaSet's: a new name; pending). */
  private recreate(pod: KubeObject, now: Date): void {
    const owner = ((pod.metadata.ownerReferences ?? []) as KubeObject[]).find((o) => o.controller);
    if (!owner || owner.kind === 'DaemonSet' || owner.kind === 'Node') return;
    const { nodeName: _n, ...spec } = pod.spec ?? {};
    const base = String(pod.metadata.name).replace(/-[a-z0-9]{5}$/, '');
    this.o.api.create(PODS, pod.metadata.namespace, {
      metadata: { generateName: `${base}-`, namespace: pod.metadata.namespace, labels: pod.metadata.labels, annotations: pod.metadata.annotations, ownerReferences: pod.metadata.ownerReferences },
      spec,
    } as KubeObject, { manager: 'kube-controller-manager', now });
  }

  private taint(node: KubeObject, now: Date): void {
    const taints = (node.spec?.taints ?? []) as KubeObject[];
    if (taints.some((t) => t.key === DISRUPTED_TAINT.key)) return;
    this.o.api.patch(NODES, '', node.metadata.name, 'merge', { spec: { taints: [...taints, { ...DISRUPTED_TAINT, timeAdded: k8sTime(now) }] } }, this.ctx(now));
  }

  private untaint(claim: KubeObject, now: Date): void {
    const node = this.nodeOf(claim);
    if (!node) return;
    const taints = ((node.spec?.taints ?? []) as KubeObject[]).filter((t) => t.key !== DISRUPTED_TAINT.key);
    this.o.api.patch(NODES, '', node.metadata.name, 'merge', { spec: { taints: taints.length ? taints : null } }, this.ctx(now));
  }

  private patchConditions(claim: KubeObject, conditions: readonly object[], now: Date): void {
    this.o.api.patch(NODECLAIMS, '', claim.metadata.name, 'merge', { status: { conditions } }, this.ctx(now), 'status');
  }

  /**
   * markDeleting — the NodeClaim is deleted and stays, held by Karpenter's termination finalizer (deletionTimestamp
   * set), until its Node is drained; `removeClaim` then lets it go.
   */
  private markDeleting(claim: KubeObject, now: Date): void {
    const current = this.claim(claim.metadata.name);
    if (!current || current.metadata.deletionTimestamp) return;
    if (this.o.api.finalizedKinds.has('NodeClaim') && (current.metadata.finalizers ?? []).length > 0) this.o.api.delete(NODECLAIMS, '', current.metadata.name, this.ctx(now));
    else this.o.api.store.put(NODECLAIMS, { ...current, metadata: { ...current.metadata, deletionTimestamp: k8sTime(now), deletionGracePeriodSeconds: 0 } });
    this.stats.nodeClaimsDeleted++;
  }

  private removeClaim(claim: KubeObject): void {
    this.commands.delete(claim.metadata.name);
    this.o.api.store.remove(NODECLAIMS, '', claim.metadata.name);
  }

  private record(events: readonly KarpenterEvent[], claim: KubeObject, node: KubeObject | undefined, now: Date): void {
    for (const e of events) {
      const on = e.on === 'Node' ? node : claim;
      if (on) this.o.api.create(EVENTS, 'default', eventObject(on, e.type, e.reason, e.message, now), this.ctx(now));
    }
  }

  /** recordOnce — `DisruptionBlocked` (Normal) on the Node and the NodeClaim, once per message (the recorder dedupes). */
  private recordOnce(claim: KubeObject, node: KubeObject, message: string, now: Date): void {
    const key = `${claim.metadata.uid}|${message}`;
    if (this.blocked.has(key)) return;
    this.blocked.add(key);
    this.record([{ on: 'Node', type: 'Normal', reason: 'DisruptionBlocked', message }, { on: 'NodeClaim', type: 'Normal', reason: 'DisruptionBlocked', message }], claim, node, now);
  }
}

/** startSimKarpenter — a SimKarpenter, started. */
export function startSimKarpenter(o: SimKarpenterOptions): SimKarpenter {
  const k = new SimKarpenter(o);
  k.start();
  return k;
}
