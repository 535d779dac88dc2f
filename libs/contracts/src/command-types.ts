/**
 * The TypeScript side of the command catalogue (command-schemas/): for every command, the type of its request and of
 * its reply, so that `CommandBus.send` is typed by pattern and no caller asserts a reply type by hand. A reply the
 * gateway only hands on to its HTTP client is a {@link JsonObject}; one a service reads has its own type here. The
 * JSON Schemas are what is checked at run time; these types say the same, for the compiler. Data only.
 */
import type { DrainRequest, InstanceTypeFacts, NodeDetail, NodeGetQuery, NodesListQuery, NodeView, Page, ProvisionRequest, SimulateRequest, SpotMarketQuery } from './api.js';
import type { ApprovalDecisionRequest, ApprovalsListQuery, ApprovalView } from './approvals.js';
import type { CommandName, NameOf, SentPattern } from './command-schemas/index.js';
import type { FencingView, InstanceFenceRequest, InstanceFenceReply, InstancesDescribeReply, InstancesDescribeRequest, NodePressure } from './fencing.js';
import type { RebalancesListQuery, RebalancesSummary, RebalancesSummaryQuery, RebalanceView } from './rebalance.js';
import type { InterruptionRates, InterruptionRatesQuery, InterruptionsListQuery, InterruptionsListReply, NodeHoursQuery, NodeHoursReply } from './interruptions.js';
import type { DrainOperation } from './uncordon.js';
import type { PauseRequest, PauseView } from './pause.js';
import type { PlacementEntry } from './placement.js';
import type { SteeringStatus } from './steering.js';

/** JsonObject — a JSON object whose fields the caller does not read (it hands the reply on as it is). */
export type JsonObject = { readonly [key: string]: unknown };

/** ServiceStatus — a service's readiness (`service.status.<service>`), for the gateway's /readyz. */
export interface ServiceStatus {
  ready: boolean;
  degraded: boolean;
  reason?: string;
  checks: Record<string, { ok: boolean; degraded?: boolean; detail?: string }>;
}

/** PlannedNodeRemoval — one node a consolidation plan removes, where its pods go, and what it saves. */
export interface PlannedNodeRemoval {
  readonly node: string;
  readonly reason: 'empty' | 'underutilized';
  readonly utilization: number;
  readonly pods: readonly { readonly pod: string; readonly to: string }[];
  readonly savingsUsdPerHour: number;
  readonly priceKnown: boolean;
}

/** OptimizeReplaceRequest — `optimize.replace`: nodes to move off, gradually, through the optimizer's drains. */
export interface OptimizeReplaceRequest {
  readonly nodePool: string;
  readonly nodes: readonly string[];
  /** Why, in a sentence a person reads. */
  readonly reason: string;
  /** What the caller decided on, kept with the request. */
  readonly evidence?: readonly Record<string, unknown>[];
}

/** ReplaceOutcome — accepted: its drain started; queued: asked again next pass; refused: it no longer qualifies. */
export type ReplaceOutcome = 'accepted' | 'queued' | 'refused';

/** OptimizeReplaceResult — what the optimizer did with an `optimize.replace` request, node by node. */
export interface OptimizeReplaceResult {
  readonly requestId: string;
  readonly nodePool: string;
  readonly action: 'drain' | 'wait_for_window' | 'approval_requested' | 'approval_open' | 'paused' | 'busy' | 'off';
  readonly detail: string;
  readonly approvalId?: string;
  readonly results: readonly { readonly node: string; readonly outcome: ReplaceOutcome; readonly reason: string; readonly detail: string; readonly operationId?: string }[];
}

/** OptimizePlan — scheduler-scoring's `optimize.plan` reply: the plan now, with the settings it was made with. */
export interface OptimizePlan {
  readonly remove: readonly PlannedNodeRemoval[];
  readonly blocked: readonly { readonly node: string; readonly reason: string; readonly detail?: string; readonly pdbs?: readonly string[] }[];
  readonly pdbImpact: readonly { readonly pdb: string; readonly disruptionsUsed: number; readonly disruptionsAllowed: number }[];
  readonly hourlySavingsUsd: number;
  readonly monthlySavingsUsd: number;
  readonly threshold?: number;
  readonly mode?: string;
  readonly nodePool?: string;
  readonly priceSource?: string;
  readonly generatedAt?: string;
}

/** Freshness — how old the cached data behind a spot-advisor answer is. */
export interface Freshness {
  readonly fetchedAt: string;
  readonly stale: boolean;
  readonly ageSeconds: number;
  readonly refreshError?: { readonly code?: string; readonly message: string };
}

/** SpotPricesReply — `spot.prices`: per (type, zone); absent fields are unknown, never zero. */
export interface SpotPricesReply extends Freshness {
  readonly region: string;
  readonly prices: readonly {
    readonly instanceType: string;
    readonly zone: string;
    readonly spotUsdPerHour?: number;
    readonly onDemandUsdPerHour?: number;
    readonly interruptionBucket?: '<5%' | '5-10%' | '10-15%' | '15-20%' | '>20%';
    /** This cluster's measurement of the pool: rebalances with a known follow-up, how many were interrupted, the share. */
    readonly measured?: { readonly samples: number; readonly interrupted: number; readonly share: number };
  }[];
}

/** InstanceTypesReply — `instancetypes.list`: the catalog, and the requested types EC2 does not know. */
export interface InstanceTypesReply extends Freshness {
  readonly region: string;
  readonly items: readonly (InstanceTypeFacts & { readonly onDemandUsdPerHour?: number | null; readonly onDemandKnown?: boolean })[];
  readonly unknown: readonly string[];
}

type Names = { name: string };

/** CommandTypes — the request and reply type of every command of the catalogue. */
export interface CommandTypes {
  'nodes.list': { request: NodesListQuery; reply: Page<NodeView> };
  'node.get': { request: NodeGetQuery; reply: NodeDetail };
  'nodehours.list': { request: NodeHoursQuery; reply: NodeHoursReply };
  'cordons.list': { request: { limit?: number; cursor?: string; verdict?: 'uncordon' | 'wait' | 'skip' }; reply: Page<JsonObject> };
  'events.list': { request: { limit?: number; cursor?: string; node?: string; action?: string }; reply: Page<JsonObject> };
  'node.drain': { request: DrainRequest; reply: DrainOperation };
  'drain.get': { request: { id: string } | { node: string }; reply: DrainOperation };
  'rebalances.list': { request: RebalancesListQuery; reply: Page<RebalanceView> };
  'rebalances.summary': { request: RebalancesSummaryQuery; reply: RebalancesSummary };
  'interruptions.list': { request: InterruptionsListQuery; reply: InterruptionsListReply };
  'interruptions.rates': { request: InterruptionRatesQuery; reply: InterruptionRates };
  'fencing.status': { request: { limit?: number; node?: string }; reply: FencingView };
  'pressure.list': { request: { node?: string }; reply: { items: NodePressure[] } };
  'decisions.list': { request: { limit?: number; cursor?: string; kind?: string; subject?: string }; reply: Page<JsonObject> };
  'placement.list': { request: { limit?: number; cursor?: string; namespace?: string; node?: string; workloadClass?: string }; reply: Page<PlacementEntry> & { priceSource?: string } };
  'optimize.plan': { request: { nodePool?: string }; reply: OptimizePlan };
  'optimize.trigger': { request: { dryRun: boolean }; reply: JsonObject };
  'optimize.replace': { request: OptimizeReplaceRequest; reply: OptimizeReplaceResult };
  'simulate.run': { request: SimulateRequest; reply: JsonObject };
  'nodepools.list': { request: Record<string, never>; reply: JsonObject };
  'nodepool.get': { request: Names; reply: JsonObject };
  'nodepool.create': { request: { nodePool: Record<string, unknown> }; reply: JsonObject };
  'nodepool.update': { request: Names & { patch: Record<string, unknown> }; reply: JsonObject };
  'nodepool.delete': { request: Names; reply: { nodePool: string; deleted: true } };
  'nodeclaims.list': { request: Names; reply: JsonObject };
  'nodepool.consolidate': { request: Names & { dryRun: boolean }; reply: JsonObject };
  'steering.status': { request: Record<string, never>; reply: SteeringStatus };
  'steering.report': { request: { from: string; to?: string }; reply: JsonObject };
  'steering.pools': { request: Record<string, never>; reply: JsonObject };
  'spot.market': { request: SpotMarketQuery; reply: JsonObject };
  'spot.prices': { request: SpotMarketQuery; reply: SpotPricesReply };
  'spot.history': { request: { instanceType: string; region?: string }; reply: JsonObject };
  'instancetypes.list': { request: { region?: string; instanceTypes?: string[] }; reply: InstanceTypesReply };
  'instance.provision': { request: ProvisionRequest; reply: JsonObject };
  'instance.fence': { request: InstanceFenceRequest; reply: InstanceFenceReply };
  'instances.describe': { request: InstancesDescribeRequest; reply: InstancesDescribeReply };
  'pause.get': { request: Record<string, never>; reply: PauseView };
  'pause.set': { request: PauseRequest; reply: PauseView };
  'pause.clear': { request: Record<string, never>; reply: PauseView };
  'service.status': { request: Record<string, never>; reply: ServiceStatus };
  'approvals.list': { request: ApprovalsListQuery; reply: { items: ApprovalView[]; more: boolean } };
  'approvals.get': { request: { id: string }; reply: ApprovalView };
  'approvals.approve': { request: ApprovalDecisionRequest; reply: ApprovalView };
  'approvals.reject': { request: ApprovalDecisionRequest; reply: ApprovalView };
}

// The two sides of the catalogue name the same commands: a name in one and not the other does not compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const COMMAND_TYPES_COVER_THE_CATALOGUE: Same<keyof CommandTypes, CommandName> = true;

/** RequestOf — the request `data` of a pattern. */
export type RequestOf<P extends SentPattern> = CommandTypes[NameOf<P>]['request'];
/** ReplyOf — the reply `data` of a pattern. */
export type ReplyOf<P extends SentPattern> = CommandTypes[NameOf<P>]['reply'];
