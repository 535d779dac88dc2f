/** The API's shapes, as far as the console reads them (docs/api.md; the OpenAPI document at /api/docs-json). */
export interface Node {
  id: string;
  name: string;
  instanceType: string | null;
  zone: string | null;
  capacityType: 'spot' | 'on-demand' | null;
  nodePool: string | null;
  state: 'Ready' | 'Cordoned' | 'Draining' | 'NotReady' | 'Deleted';
  ready: boolean;
  unschedulable: boolean;
  taints: { key: string; value?: string; effect: string }[];
  labels?: Record<string, string>;
  conditions?: { type: string; status: string; reason?: string; lastTransitionTime?: string }[];
  allocatable?: { cpuMilli: number; memoryBytes: number; gpu: number; pods: number };
  requested?: { cpuMilli: number; memoryBytes: number; gpu: number };
  podCount: number;
  createdAt?: string;
  changedAt?: string;
}

export interface Pod {
  uid: string;
  namespace: string;
  name: string;
  phase: string;
  ownerKind?: string;
  ownerName?: string;
  workloadClass?: string;
  requests?: { cpuMilli: number; memoryBytes: number; gpu: number };
  daemonset?: boolean;
}

export interface DrainOperation {
  id: string;
  node: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  reason?: string;
  message?: string;
  actor?: string;
  progress?: { podsTotal?: number; podsLeft?: number; pdbWaits?: number; [k: string]: unknown };
  startedAt?: string;
  finishedAt?: string;
}

export interface PsiPair {
  some: { avg10: number; avg60: number };
  full: { avg10: number; avg60: number };
}

export interface NodePressureView {
  mode: string;
  status: 'ok' | 'unknown' | 'unreachable';
  cpu: PsiPair | null;
  memory: PsiPair | null;
  io: PsiPair | null;
  highSamples: number;
  sampledAt: string;
  lastRelief: { pod: string; at: string; outcome: string } | null;
}

export interface NodeFencingView {
  verdict: { decision: string; reason: string; message: string } | null;
  operation: { id: string; status: string; reason?: string; message?: string; instanceId: string; action: string; startedAt: string; steps: { status: string; at: string; detail?: string }[] } | null;
}

export interface NodeDetail extends Node {
  pods: Pod[];
  annotations?: Record<string, string>;
  drain: DrainOperation | null;
  pressure?: NodePressureView | null;
  fencing?: NodeFencingView | null;
}

export interface Evidence {
  cordonedSince?: string;
  cordonedSinceSource?: string;
  cordonManager?: string;
  cordonManagerKind?: string;
  provenance?: string;
  rebalanceTaint?: boolean;
  ready?: boolean;
  readySince?: string;
  effectiveGraceMinutes?: number;
  flapCount?: number;
  blockingTaints?: string[];
  blockingKey?: string;
}

export interface Cordon {
  node: string;
  decision: 'uncordon' | 'wait' | 'skip';
  reason: string;
  description?: string;
  evidence: Evidence;
  uncordonAt?: string;
  evaluatedAt?: string;
}

export interface ScalingEvent {
  id: string;
  node: string;
  action: string;
  decision?: string | null;
  reason: string;
  actor: string;
  operationId?: string | null;
  dryRun?: boolean;
  evidence?: Evidence;
  createdAt: string;
}

export interface Decision {
  id: string;
  kind: string;
  subject: string;
  outcome: string;
  reason: string;
  rationale: string;
  actor: string;
  createdAt: string;
  details?: Record<string, unknown>;
}

export interface Plan {
  remove: { node: string; reason: string; utilization: number; pods: { pod: string; to: string }[]; savingsUsdPerHour: number; priceKnown: boolean }[];
  blocked: { node: string; reason: string; detail?: string }[];
  pdbImpact: { pdb: string; disruptionsUsed: number; disruptionsAllowed: number }[];
  hourlySavingsUsd: number;
  monthlySavingsUsd: number;
  threshold: number;
  mode: string;
  priceSource: string;
  generatedAt: string;
  latestStoredPlan?: { id: string; status: string; createdAt: string; executedAt: string | null } | null;
}

export interface MarketItem {
  instanceType: string;
  availabilityZone: string;
  spotUsdPerHour: number;
  spotPriceSince?: string;
  onDemandUsdPerHour?: number;
  onDemandKnown?: boolean;
  savingsPct?: number;
  trend?: { direction: string; changePct: number; fromUsdPerHour: number };
  interruption?: {
    bucket: string | null;
    basis: string;
    explanation: string;
    volatility?: { coefficientOfVariation: number; changes: number; minUsdPerHour: number; maxUsdPerHour: number; points: number };
  };
}

export interface Market {
  region: string;
  window: { hours: number; from: string; to: string };
  fetchedAt: string;
  stale: boolean;
  ageSeconds?: number;
  items: MarketItem[];
}

export interface NodePool {
  name: string;
  weight?: number;
  limits?: Record<string, string>;
  disruption?: { consolidationPolicy?: string; consolidateAfter?: string; budgets?: { nodes: string; schedule?: string; duration?: string }[] };
  resources?: Record<string, string>;
  ready?: boolean;
  createdAt?: string;
}
