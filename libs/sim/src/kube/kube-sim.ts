import { writeFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Taint } from '@kubernetes/client-node';
import type { Fleet } from '../fleet/fleet.types.js';
import { k8sTime, KubeApi, type SimTimers, type WriteContext } from './api/index.js';
import { badRequest } from './errors.js';
import { byId, type KubeObject, RESOURCES } from './resources.js';
import { type Faults, KubeHttp, NO_FAULTS, type Stats } from './server.js';
import { SimKubelet, type NodePressure } from './kubelet.js';
import { ADMIN_TOKEN, RbacGate, type RbacRecord } from './rbac-gate.js';
import { serviceAccountUser } from './rbac.js';

export interface KubeSimOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Timestamps (creation, managedFields, conditions) come from here; defaults to the wall clock. */
  clock?: () => Date;
  /** Karpenter's CRDs installed at start. */
  karpenter?: boolean;
  /** How long a gracefully deleted (or evicted) pod stays Terminating before it goes. Default 300 ms. */
  podTerminationMs?: number;
  /**
   * Where that delay is timed: a FakeClock (with `clock`) makes the pod go when the test steps past it. Real timers
   * when absent.
   */
  timers?: SimTimers;
  /** Interval between BOOKMARK events on watches that allow them. Default 5 s. */
  bookmarkIntervalMs?: number;
  /** Change events kept for watch replay; older versions get 410 Gone. Default 10,000. */
  historySize?: number;
  /** Builds the fleet for `POST /_sim/fleet` (the CLI passes the generator; keeps this module free of it). */
  fleetFactory?: (opts: Record<string, unknown>) => Fleet;
  /**
   * The simulated kubelets (docs/fencing.md, docs/pressure.md): node Leases renewed every `renewMs` for nodes labelled
   * `nodes-manager/fencing` (or `leases: 'all'`), the Summary API with PSI, hung nodes. On by default.
   */
  kubelet?: { renewMs?: number; leases?: 'labelled' | 'all' } | false;
  /** RBAC enforced from the start with the Roles, ClusterRoles and bindings among these objects; see KubeSim.rbac. */
  rbac?: readonly unknown[];
}

/**
 * SimRbac — authentication and RBAC as kube-apiserver enforces them (rbac.ts), off by default. The simulator's own
 * kubeconfig (`kubeConfig()`, `kubeconfigPath`) is a cluster admin's (system:masters) and is never refused.
 */
export interface SimRbac {
  /** enforce — RBAC on, with the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings among `objects`; called again, replaces them. */
  enforce(objects: readonly unknown[]): void;
  disable(): void;
  /** serviceAccountKubeconfig — a kubeconfig file whose bearer token authenticates as ServiceAccount `namespace/name`. */
  serviceAccountKubeconfig(namespace: string, name: string): string;
  /** records — every request a non-admin made while enforced: its attributes, the decision and the grants that allowed it. */
  records(): RbacRecord[];
  clearRecords(): void;
}

export interface KubeSimScenario {
  cordonAsNth(node: string, opts?: { taint?: boolean; at?: Date }): void;
  cordonAsKubectl(node: string, opts?: { at?: Date }): void;
  uncordonAs(node: string, manager: string, opts?: { at?: Date }): void;
  addTaint(node: string, taint: V1Taint, opts?: { manager?: string; at?: Date }): void;
  removeTaint(node: string, key: string, opts?: { manager?: string; at?: Date }): void;
  setReady(node: string, ready: boolean, opts?: { since?: Date }): void;
  setAnnotation(node: string, key: string, value: string | null): void;
  setLabel(node: string, key: string, value: string | null): void;
  deleteNode(node: string): void;
  /** interruptAsNth — NTH's Spot interruption notice in taint mode: its `spot-itn` taint (and a cordon). */
  interruptAsNth(node: string, opts?: { at?: Date }): void;
  /** nodeEvent — a core/v1 Event about the Node in `default`, as NTH emits them (`RebalanceRecommendation`, `SpotInterruption`). */
  nodeEvent(node: string, reason: string, message: string, opts?: { at?: Date; component?: string; uid?: string }): void;
  installKarpenter(): void;
  removeKarpenter(): void;
  /** compact — forget the watch history (every watch from an earlier version then gets 410). */
  compact(): void;
  /** hangNode — the node's kubelet stops renewing its Lease (last renewal `since`) and the node turns Ready=Unknown. */
  hangNode(node: string, opts?: { since?: Date }): void;
  /** recoverNode — the kubelet is back: Lease renewed, Ready=True. */
  recoverNode(node: string): void;
  /** setPressure — the PSI and pod memory use the node's Summary API reports (null: none, PSI unknown). */
  setPressure(node: string, pressure: NodePressure | null): void;
}

export interface KubeSim {
  url: string;
  kubeconfigPath: string;
  kubeConfig(userAgent?: string): KubeConfig;
  stop(): Promise<void>;
  load(fleet: Partial<Fleet>): void;
  scenario: KubeSimScenario;
  faults: { set(f: Partial<Faults>): void; clear(): void; current(): Faults };
  stats(): Stats;
  /** dropWatches — every open watch connection is cut (not ended): clients see a broken stream. */
  dropWatches(): void;
  /** The semantics layer, for tests that need to reach under HTTP. */
  readonly api: KubeApi;
  /** The simulated kubelets: leases, Summary API, hung nodes. */
  readonly kubelet: SimKubelet;
  /** objects — every Node or Event as the API would list it, without HTTP (for tests that look many times). */
  objects(collection: 'nodes' | 'events'): KubeObject[];
  readonly rbac: SimRbac;
}

/** NTH_MANAGER — aws-node-termination-handler's field manager (its client's User-Agent prefix). */
export const NTH_MANAGER = 'node-termination-handler';
export const NTH_REBALANCE_TAINT = 'aws-node-termination-handler/rebalance-recommendation';
export const KUBECTL_CORDON_MANAGER = 'kubectl-cordon';
export const NTH_SPOT_ITN_TAINT = 'aws-node-termination-handler/spot-itn';
const EVENTS = byId('/events');

const NODES = byId('/nodes');
const PODS = byId('/pods');
const NAMESPACES = byId('/namespaces');

function kubeconfigYaml(url: string, user = 'sim', token = ADMIN_TOKEN): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: nodes-manager-sim',
    '  cluster:',
    `    server: ${url}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${user}`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: nodes-manager-sim',
    '  context:',
    '    cluster: nodes-manager-sim',
    `    user: ${user}`,
    'current-context: nodes-manager-sim',
    '',
  ].join('\n');
}

/** startKubeSim — starts the Kubernetes API simulator and writes its kubeconfig. */
export async function startKubeSim(opts: KubeSimOptions = {}): Promise<KubeSim> {
  const clock = opts.clock ?? (() => new Date());
  const api = new KubeApi({
    clock,
    ...(opts.timers ? { timers: opts.timers } : {}),
    podTerminationMs: opts.podTerminationMs ?? 300,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5000,
    karpenter: opts.karpenter ?? false,
    historySize: opts.historySize ?? 10_000,
  });
  const ctx = (manager: string, at?: Date): WriteContext => ({ manager, now: at ?? clock() });
  const kubelet = new SimKubelet(api, { clock, ...(opts.kubelet ? opts.kubelet : {}) });
  const patchNode = (node: string, body: unknown, manager: string, at?: Date, type: 'strategic' | 'merge' = 'strategic') =>
    api.patch(NODES, '', node, type, body, ctx(manager, at));
  const taintsOf = (node: string): KubeObject[] => api.get(NODES, '', node).spec?.taints ?? [];
  const defaultManager = (key: string): string =>
    key.startsWith('karpenter.sh/') ? 'karpenter' : key === 'ToBeDeletedByClusterAutoscaler' ? 'cluster-autoscaler' : key.startsWith('aws-node-termination-handler/') ? NTH_MANAGER : 'nodes-manager-sim';

  const scenario: KubeSimScenario = {
    cordonAsNth(node, o = {}) {
      if (o.taint && !taintsOf(node).some((t) => t.key === NTH_REBALANCE_TAINT)) {
        const at = o.at ?? clock();
        patchNode(node, { spec: { taints: [...taintsOf(node), { key: NTH_REBALANCE_TAINT, value: String(Math.floor(at.getTime() / 1000)), effect: 'NoSchedule', timeAdded: k8sTime(at) }] } }, NTH_MANAGER, at);
      }
      patchNode(node, { spec: { unschedulable: true } }, NTH_MANAGER, o.at);
    },
    cordonAsKubectl(node, o = {}) {
      patchNode(node, { spec: { unschedulable: true } }, KUBECTL_CORDON_MANAGER, o.at);
    },
    uncordonAs(node, manager, o = {}) {
      patchNode(node, { spec: { unschedulable: null } }, manager, o.at);
    },
    addTaint(node, taint, o = {}) {
      const rest = taintsOf(node).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
      patchNode(node, { spec: { taints: [...rest, taint] } }, o.manager ?? defaultManager(taint.key), o.at);
    },
    removeTaint(node, key, o = {}) {
      const rest = taintsOf(node).filter((t) => t.key !== key);
      patchNode(node, { spec: { taints: rest.length ? rest : null } }, o.manager ?? defaultManager(key), o.at);
    },
    setReady(node, ready, o = {}) {
      const now = clock();
      const since = k8sTime(o.since ?? now);
      const cond = {
        type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'KubeletReady' : 'KubeletNotReady',
        message: ready ? 'kubelet is posting ready status' : 'container runtime network not ready',
        lastHeartbeatTime: k8sTime(now), lastTransitionTime: since,
      };
      api.patch(NODES, '', node, 'strategic', { status: { conditions: [cond] } }, ctx('kubelet', now), 'status');
    },
    setAnnotation(node, key, value) {
      patchNode(node, { metadata: { annotations: { [key]: value } } }, 'nodes-manager-sim', undefined, 'merge');
    },
    setLabel(node, key, value) {
      patchNode(node, { metadata: { labels: { [key]: value } } }, 'nodes-manager-sim', undefined, 'merge');
    },
    deleteNode(node) {
      api.delete(NODES, '', node, ctx('nodes-manager-sim'));
    },
    interruptAsNth(node, o = {}) {
      const at = o.at ?? clock();
      if (!taintsOf(node).some((t) => t.key === NTH_SPOT_ITN_TAINT)) {
        patchNode(node, { spec: { taints: [...taintsOf(node), { key: NTH_SPOT_ITN_TAINT, value: String(Math.floor(at.getTime() / 1000)), effect: 'NoSchedule', timeAdded: k8sTime(at) }] } }, NTH_MANAGER, at);
      }
      patchNode(node, { spec: { unschedulable: true } }, NTH_MANAGER, at);
    },
    nodeEvent(node, reason, message, o = {}) {
      const at = k8sTime(o.at ?? clock());
      let uid = o.uid;
      if (uid === undefined) {
        try {
          uid = api.get(NODES, '', node).metadata?.uid;
        } catch {
          uid = undefined;
        }
      }
      const component = o.component ?? 'aws-node-termination-handler';
      api.create(EVENTS, 'default', {
        metadata: { generateName: `${node}.`, namespace: 'default' },
        involvedObject: { apiVersion: 'v1', kind: 'Node', name: node, ...(uid ? { uid } : {}) },
        reason, message, type: 'Normal',
        source: { component }, reportingComponent: component,
        firstTimestamp: at, lastTimestamp: at, count: 1,
      } as KubeObject, ctx(NTH_MANAGER, o.at));
    },
    installKarpenter() {
      api.karpenter = true;
    },
    removeKarpenter() {
      api.karpenter = false;
      for (const def of RESOURCES.filter((r) => r.karpenter)) {
        api.endWatches(def);
        api.store.dropAll(def);
      }
    },
    compact() {
      api.store.compact();
    },
    hangNode(node, o = {}) {
      kubelet.hang(node, o.since);
    },
    recoverNode(node) {
      kubelet.recover(node);
    },
    setPressure(node, pressure) {
      kubelet.setPressure(node, pressure);
    },
  };

  const load = (fleet: Partial<Fleet>): void => {
    const now = k8sTime(clock());
    const present = new Set<string>();
    for (const [, e] of api.store.scan(NAMESPACES, undefined)) present.add(e.name);
    const namespaces = new Set<string>(fleet.namespaces ?? []);
    for (const o of [...(fleet.pods ?? []), ...(fleet.pdbs ?? []), ...((fleet.persistentVolumeClaims ?? []) as KubeObject[]), ...((fleet.workloads ?? []) as KubeObject[])]) {
      const ns = (o as KubeObject).metadata?.namespace;
      if (ns) namespaces.add(ns);
    }
    api.store.load(NAMESPACES, [...namespaces].filter((n) => !present.has(n)).map((n) => api.namespaceObject(n, now)));
    const prepared = (o: object, apiVersion: string, kind: string): KubeObject => {
      const obj = o as KubeObject;
      obj.apiVersion ??= apiVersion;
      obj.kind ??= kind;
      obj.metadata.uid ??= crypto.randomUUID();
      obj.metadata.creationTimestamp ??= now;
      return obj;
    };
    api.store.load(NODES, (fleet.nodes ?? []).map((n) => prepared(n, 'v1', 'Node')));
    api.store.load(PODS, (fleet.pods ?? []).map((p) => prepared(p, 'v1', 'Pod')));
    for (const w of (fleet.workloads ?? []) as KubeObject[]) {
      const [group, version] = String(w.apiVersion).split('/');
      const def = RESOURCES.find((r) => r.group === group && r.version === version && r.kind === w.kind);
      if (!def) throw badRequest(`no resource for ${w.apiVersion} ${w.kind}`);
      api.store.load(def, [prepared(w, w.apiVersion, w.kind)]);
    }
    api.store.load(byId('/persistentvolumes'), ((fleet.persistentVolumes ?? []) as KubeObject[]).map((v) => prepared(v, 'v1', 'PersistentVolume')));
    api.store.load(byId('/persistentvolumeclaims'), ((fleet.persistentVolumeClaims ?? []) as KubeObject[]).map((c) => prepared(c, 'v1', 'PersistentVolumeClaim')));
    api.store.load(byId('policy/poddisruptionbudgets'), (fleet.pdbs ?? []).map((p) => prepared(p, 'policy/v1', 'PodDisruptionBudget')));
    api.store.load(byId('karpenter.sh/nodepools'), (fleet.nodePools ?? []).map((p) => prepared(p, 'karpenter.sh/v1', 'NodePool')));
    api.store.load(byId('karpenter.sh/nodeclaims'), (fleet.nodeClaims ?? []).map((p) => prepared(p, 'karpenter.sh/v1', 'NodeClaim')));
    api.refreshAllPdbs();
    api.store.compact();
  };

  const faults = {
    set(f: Partial<Faults>) {
      Object.assign(http.faults, f);
    },
    clear() {
      http.faults = { ...NO_FAULTS };
    },
    current: (): Faults => ({ ...http.faults }),
  };

  const simRoute = (method: string, path: string[], body: unknown): unknown => {
    const b = (body ?? {}) as Record<string, unknown>;
    const date = (v: unknown): Date | undefined => (typeof v === 'string' ? new Date(v) : undefined);
    const [area, action] = path;
    if (area === 'faults') {
      if (method === 'DELETE') faults.clear();
      else if (method !== 'GET') faults.set(b as Partial<Faults>);
      return faults.current();
    }
    if (area === 'stats') return http.stats;
    if (area === 'fleet' && method === 'POST') {
      if (!opts.fleetFactory) throw badRequest('this simulator was started without a fleet generator');
      const fleet = opts.fleetFactory(b);
      load(fleet);
      return { nodes: fleet.nodes.length, pods: fleet.pods.length };
    }
    if (area === 'scenario' && method === 'POST' && action) {
      const node = String(b.node ?? '');
      switch (action) {
        case 'cordonAsNth': scenario.cordonAsNth(node, { taint: b.taint === true, ...(date(b.at) ? { at: date(b.at)! } : {}) }); break;
        case 'cordonAsKubectl': scenario.cordonAsKubectl(node, date(b.at) ? { at: date(b.at)! } : {}); break;
        case 'uncordonAs': scenario.uncordonAs(node, String(b.manager ?? 'nodes-manager-sim')); break;
        case 'addTaint': scenario.addTaint(node, b.taint as V1Taint); break;
        case 'removeTaint': scenario.removeTaint(node, String(b.key)); break;
        case 'setReady': scenario.setReady(node, b.ready === true, date(b.since) ? { since: date(b.since)! } : {}); break;
        case 'setAnnotation': scenario.setAnnotation(node, String(b.key), (b.value ?? null) as string | null); break;
        case 'setLabel': scenario.setLabel(node, String(b.key), (b.value ?? null) as string | null); break;
        case 'deleteNode': scenario.deleteNode(node); break;
        case 'interruptAsNth': scenario.interruptAsNth(node, date(b.at) ? { at: date(b.at)! } : {}); break;
        case 'nodeEvent': scenario.nodeEvent(node, String(b.reason ?? ''), String(b.message ?? ''), date(b.at) ? { at: date(b.at)! } : {}); break;
        case 'installKarpenter': scenario.installKarpenter(); break;
        case 'removeKarpenter': scenario.removeKarpenter(); break;
        case 'compact': scenario.compact(); break;
        case 'hangNode': scenario.hangNode(node, date(b.since) ? { since: date(b.since)! } : {}); break;
        case 'recoverNode': scenario.recoverNode(node); break;
        case 'setPressure': scenario.setPressure(node, (b.pressure ?? null) as NodePressure | null); break;
        default: throw badRequest(`unknown scenario action ${action}`);
      }
      return { ok: true };
    }
    throw badRequest(`unknown simulator control path /_sim/${path.join('/')}`);
  };

  const http = new KubeHttp(api, clock, simRoute);
  const gate = new RbacGate();
  http.rbac = gate;
  if (opts.rbac) gate.enforce(opts.rbac);
  const kubeconfigs: string[] = [];
  http.nodeProxy = (node, path) => {
    if (path !== 'stats/summary') throw badRequest(`the simulated kubelet serves only stats/summary, not ${path}`);
    return kubelet.summary(node);
  };
  if (opts.kubelet !== false) kubelet.start();
  const server: Server = createServer(http.handle);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const url = `http://${opts.host ?? '127.0.0.1'}:${addr.port}`;
  const kubeconfigPath = join(tmpdir(), `nodes-manager-kube-sim-${process.pid}-${addr.port}.kubeconfig`);
  writeFileSync(kubeconfigPath, kubeconfigYaml(url), { mode: 0o600 });

  return {
    url,
    kubeconfigPath,
    api,
    kubeConfig(userAgent?: string): KubeConfig {
      const kc = new KubeConfig();
      kc.loadFromString(kubeconfigYaml(url));
      if (userAgent) {
        kc.addAuthenticator({
          isAuthProvider: () => true,
          applyAuthentication: async (_user, o) => {
            o.headers = { ...(o.headers ?? {}), 'User-Agent': userAgent };
          },
        });
      }
      return kc;
    },
    kubelet,
    async stop() {
      kubelet.stop();
      api.close();
      http.closeWatches();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const p of [kubeconfigPath, ...kubeconfigs]) rmSync(p, { force: true });
    },
    load,
    objects: (collection) => api.list(collection === 'nodes' ? NODES : EVENTS, undefined, {}).items.map((e) => JSON.parse(e.json) as KubeObject),
    scenario,
    faults,
    stats: () => structuredClone(http.stats),
    dropWatches: () => http.closeWatches(),
    rbac: {
      enforce: (objects) => gate.enforce(objects),
      disable: () => gate.disable(),
      serviceAccountKubeconfig(namespace, name) {
        const path = join(tmpdir(), `nodes-manager-kube-sim-${process.pid}-${addr.port}-${namespace}-${name}.kubeconfig`);
        writeFileSync(path, kubeconfigYaml(url, `${namespace}-${name}`, gate.tokenFor(serviceAccountUser(namespace, name))), { mode: 0o600 });
        kubeconfigs.push(path);
        return path;
      },
      records: () => gate.records(),
      clearRecords: () => gate.clearRecords(),
    },
  };
}
