import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeInstanceTypes } from './instance-types.js';
import { instanceTypeOf, parseProviderId, zoneOf } from '@nodes-manager/kube';
import { InstanceStore, type AdoptedInstance, type SimInstance } from './instances.js';
import {
  anyMatch,
  dateParam,
  decodeToken,
  Ec2ApiError,
  encodeToken,
  filtersParam,
  intParam,
  listParam,
  parseQuery,
  type QueryParams,
} from './query.js';
import { hash32, spotPriceHistory, volatilityOf, zonesOf, type SpotPricePoint } from './spot-prices.js';
import { instanceType } from '@nodes-manager/contracts';
import { actionResponseXml, errorResponseXml, type XmlValue } from './xml.js';

export interface Ec2SimOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The simulator's notion of now: prices up to it exist, instances age by it. Default: the wall clock. */
  readonly clock?: () => Date;
  /** Seeds the price series, ids and the throttle rate. Same seed, same market. Default 1. */
  readonly seed?: number;
  /** Default us-east-1; zones are `<region>a|b|c`. */
  readonly region?: string;
}

/** Ec2SimCall — one EC2 API request the simulator received (control requests under `/_sim` are not recorded). */
export interface Ec2SimCall {
  readonly action: string;
  readonly status: number;
  /** The error code answered, when the call failed. */
  readonly error?: string;
  readonly at: Date;
}

export interface Ec2SimFaults {
  /** The next `n` EC2 calls answer `RequestLimitExceeded` (503). */
  throttleNext(n: number): void;
  /** Each EC2 call answers `RequestLimitExceeded` with probability `rate` (seeded, so reproducible); 0 turns it off. */
  throttleRate(rate: number): void;
  /** Every call to `action` answers `UnauthorizedOperation` (403) until cleared. */
  unauthorized(action: string): void;
  /** Stop and terminate are accepted but never complete: instances stay `stopping`/`shutting-down` until cleared. */
  stuckTransitions(stuck: boolean): void;
  /** Launches of the offering answer `InsufficientInstanceCapacity` (capacity type absent: both) until turned off or cleared. */
  insufficientCapacity(offering: { instanceType: string; zone: string; capacityType?: 'spot' | 'on-demand' }, on?: boolean): void;
  clear(): void;
}

/**
 * InterruptionMessage — what EventBridge puts on Karpenter's interruption queue about an instance; `kind` is
 * aws/karpenter-provider-aws's message kind (pkg/controllers/interruption/messages/types.go).
 */
export interface InterruptionMessage {
  readonly kind: 'spot_interrupted' | 'rebalance_recommendation' | 'instance_terminated' | 'instance_stopped';
  readonly instanceId: string;
  readonly at: Date;
}

/** SPOT_WARNING_MS — EC2's Spot interruption notice comes two minutes before the reclaim. */
export const SPOT_WARNING_MS = 120_000;

export interface Ec2Sim {
  /** `http://host:port`, for `EC2Client({ endpoint })` or `AWS_ENDPOINT_URL_EC2`. */
  readonly url: string;
  readonly region: string;
  readonly zones: readonly string[];
  readonly faults: Ec2SimFaults;
  calls(): Ec2SimCall[];
  resetCalls(): void;
  instances(): SimInstance[];
  /** adopt — registers instances that existed before the simulator (a fleet's nodes), so EC2 calls can find them. */
  adopt(list: readonly AdoptedInstance[]): number;
  /**
   * adoptNodes — {@link adopt} for Node objects: each node's instance from its providerID, type and zone from its
   * labels; nodes that name no EC2 instance are left out.
   */
  adoptNodes(nodes: readonly NodeLike[]): number;
  /** interruptSpot — Spot reclaims an instance now: terminated with state reason `Server.SpotInstanceTermination`. */
  interruptSpot(instanceId: string): void;
  /**
   * spotInterruptionWarning — EC2's interruption notice: a `spot_interrupted` message on the interruption queue now,
   * and the instance reclaimed `leadMs` (default two minutes) later.
   */
  spotInterruptionWarning(instanceId: string, opts?: { leadMs?: number }): void;
  /** rebalanceRecommendation — a `rebalance_recommendation` message on the interruption queue; the instance runs on. */
  rebalanceRecommendation(instanceId: string): void;
  /** receiveInterruptionMessages — the interruption queue's messages since the last call, oldest first (they leave it). */
  receiveInterruptionMessages(): InterruptionMessage[];
  /** launch — one instance of an offering (see InstanceStore.launch); throws Ec2ApiError `InsufficientInstanceCapacity`. */
  launch(req: { instanceType: string; zone: string; capacityType: 'spot' | 'on-demand'; tags?: readonly { key: string; value: string }[] }): SimInstance;
  /** terminate — a user's termination, now. */
  terminate(instanceId: string): void;
  instance(instanceId: string): SimInstance | undefined;
  /** spotPrice — the Linux Spot price of an offering now (the series DescribeSpotPriceHistory answers). */
  spotPrice(instanceType: string, zone: string): number;
  /**
   * spotCapacity — the spare Spot capacity of a pool in [0, 1], what price-capacity-optimized weighs: from the type's
   * volatility (low 1, medium 0.8, high 0.55) unless set with setSpotCapacity.
   */
  spotCapacity(instanceType: string, zone: string): number;
  setSpotCapacity(instanceType: string, zone: string, capacity: number | null): void;
  stop(): Promise<void>;
}

/** Days of Spot price history EC2 keeps; StartTime is clamped to it. */
export const SPOT_HISTORY_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * startEc2Sim — an EC2 Query-protocol server (DescribeSpotPriceHistory, DescribeInstanceTypes, RunInstances,
 * DescribeInstances, TerminateInstances, StopInstances) that `@aws-sdk/client-ec2` talks to unchanged, with fault injection and
 * JSON controls under `/_sim/` for other processes (see docs/ec2-simulator.md).
 */
export async function startEc2Sim(opts: Ec2SimOptions = {}): Promise<Ec2Sim> {
  const clock = opts.clock ?? (() => new Date());
  const seed = opts.seed ?? 1;
  const region = opts.region ?? 'us-east-1';
  const zones = zonesOf(region);
  const store = new InstanceStore(seed, zones);
  const calls: Ec2SimCall[] = [];
  const fault = { throttleNext: 0, throttleRate: 0, unauthorized: new Set<string>() };
  let rng = hash32(seed, 'throttle');
  const nextUnit = (): number => {
    rng = hash32(rng, 'next');
    return rng / 2 ** 32;
  };
  const spotMemo = new Map<string, SpotPricePoint[]>();
  const queue: InterruptionMessage[] = [];
  const capacityOverride = new Map<string, number>();
  const priceMemo = new Map<string, { slot: number; price: number }>();

  const faults: Ec2SimFaults = {
    throttleNext(n) {
      fault.throttleNext = Math.max(0, Math.floor(n));
    },
    throttleRate(rate) {
      if (!(rate >= 0 && rate <= 1)) throw new RangeError(`throttle rate must be within [0, 1], got ${rate}`);
      fault.throttleRate = rate;
    },
    unauthorized(action) {
      fault.unauthorized.add(action);
    },
    stuckTransitions(stuck) {
      store.stuckTransitions = stuck;
    },
    insufficientCapacity(o, on = true) {
      for (const c of o.capacityType ? [o.capacityType] : (['spot', 'on-demand'] as const)) {
        const key = `${c}:${o.instanceType}:${o.zone}`;
        if (on) store.insufficient.add(key);
        else store.insufficient.delete(key);
      }
    },
    clear() {
      store.insufficient.clear();
      store.stuckTransitions = false;
      fault.throttleNext = 0;
      fault.throttleRate = 0;
      fault.unauthorized.clear();
    },
  };

  const describeSpotPriceHistory = (params: QueryParams, now: Date): Record<string, XmlValue> => {
    const types = listParam(params, 'InstanceType');
    const products = listParam(params, 'ProductDescription');
    const zone = params.get('AvailabilityZone');
    const filters = filtersParam(params);
    const maxResults = intParam(params, 'MaxResults', 1, 1000) ?? 1000;
    const token = params.get('NextToken') ? decodeToken<{ o: number; e: number; s: number; q: number }>(params.get('NextToken')!) : undefined;
    const oldest = now.getTime() - SPOT_HISTORY_DAYS * DAY_MS;
    const endMs = token?.e ?? Math.min(now.getTime(), (dateParam(params, 'EndTime') ?? now).getTime());
    const startMs = token?.s ?? Math.max(oldest, (dateParam(params, 'StartTime') ?? new Date(oldest)).getTime());
    const startRaw = dateParam(params, 'StartTime');
    const endRaw = dateParam(params, 'EndTime');
    if (startRaw && endRaw && startRaw.getTime() > endRaw.getTime()) {
      throw new Ec2ApiError('InvalidParameterValue', 'The StartTime must be before the EndTime.');
    }
    for (const f of filters) {
      if (!['availability-zone', 'instance-type', 'product-description', 'spot-price', 'timestamp'].includes(f.name)) {
        throw new Ec2ApiError('InvalidParameterValue', `The filter '${f.name}' is invalid`);
      }
    }
    const queryKey = JSON.stringify([types, products, zone ?? null, filters]);
    const q = hash32(queryKey);
    if (token && token.q !== q) throw new Ec2ApiError('InvalidNextToken', 'The NextToken does not belong to this request.');
    const memoKey = `${queryKey}|${startMs}|${endMs}`;
    let all = spotMemo.get(memoKey);
    if (!all) {
      const byFilter = (name: string) => filters.filter((f) => f.name === name).map((f) => f.values);
      const passes = (name: string, value: string) => byFilter(name).every((values) => anyMatch(values, value));
      all = spotPriceHistory(zones, seed, {
        instanceTypes: (t) => (types.length === 0 || types.includes(t)) && passes('instance-type', t),
        zones: (z) => (zone === undefined || zone === z) && passes('availability-zone', z),
        products: (p) => (products.length === 0 || products.includes(p)) && passes('product-description', p),
        start: new Date(startMs),
        end: new Date(endMs),
      }).filter((p) => passes('spot-price', formatPrice(p.spotPrice)) && passes('timestamp', p.timestamp.toISOString()));
      if (spotMemo.size >= 4) spotMemo.delete(spotMemo.keys().next().value!);
      spotMemo.set(memoKey, all);
    }
    const offset = token ? Number(token.o) : 0;
    const page = all.slice(offset, offset + maxResults);
    const more = offset + maxResults < all.length;
    return {
      spotPriceHistorySet: page.map((p) => ({
        instanceType: p.instanceType,
        productDescription: p.productDescription,
        spotPrice: formatPrice(p.spotPrice),
        timestamp: p.timestamp,
        availabilityZone: p.availabilityZone,
      })),
      nextToken: more ? encodeToken({ o: offset + maxResults, e: endMs, s: startMs, q }) : undefined,
    };
  };

  const actions: Record<string, (params: QueryParams, now: Date) => Record<string, XmlValue>> = {
    DescribeSpotPriceHistory: describeSpotPriceHistory,
    DescribeInstanceTypes: (params) => describeInstanceTypes(params),
    RunInstances: (params, now) => store.runInstances(params, now),
    DescribeInstances: (params, now) => store.describeInstances(params, now),
    TerminateInstances: (params, now) => store.terminateInstances(params, now),
    StopInstances: (params, now) => store.stopInstances(params, now),
  };

  const handleEc2 = (body: string, res: ServerResponse): void => {
    const params = parseQuery(body);
    const action = params.get('Action') ?? '';
    const requestId = randomUUID();
    const now = clock();
    const send = (status: number, xml: string, error?: string): void => {
      calls.push({ action, status, ...(error ? { error } : {}), at: now });
      res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId });
      res.end(xml);
    };
    const fail = (e: Ec2ApiError): void => send(e.status, errorResponseXml(e.code, e.message, requestId), e.code);
    try {
      if (!action) throw new Ec2ApiError('MissingAction', 'The request must contain the parameter Action');
      if (fault.throttleNext > 0) {
        fault.throttleNext--;
        throw new Ec2ApiError('RequestLimitExceeded', 'Request limit exceeded.', 503);
      }
      if (fault.throttleRate > 0 && nextUnit() < fault.throttleRate) {
        throw new Ec2ApiError('RequestLimitExceeded', 'Request limit exceeded.', 503);
      }
      if (fault.unauthorized.has(action)) {
        throw new Ec2ApiError(
          'UnauthorizedOperation',
          `You are not authorized to perform this operation. User: arn:aws:iam::000000000000:user/sim is not authorized to perform: ec2:${action}`,
          403,
        );
      }
      const handler = actions[action];
      if (!handler) throw new Ec2ApiError('InvalidAction', `The action ${action} is not valid for this web service.`);
      send(200, actionResponseXml(action, requestId, handler(params, now)));
    } catch (e) {
      if (e instanceof Ec2ApiError) fail(e);
      else fail(new Ec2ApiError('InternalError', `An internal error has occurred: ${(e as Error).message}`, 500));
    }
  };

  const handleControl = (method: string, path: string, body: string, res: ServerResponse): void => {
    const json = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    let input: Record<string, unknown> = {};
    try {
      input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    } catch {
      return json(400, { error: 'body must be JSON' });
    }
    const route = `${method} ${path}`;
    try {
      switch (route) {
        case 'GET /_sim/health':
          return json(200, { ok: true, region, zones, now: clock().toISOString() });
        case 'GET /_sim/calls':
          return json(200, { calls });
        case 'DELETE /_sim/calls':
          calls.length = 0;
          return json(200, { ok: true });
        case 'GET /_sim/instances':
          return json(200, { instances: store.list(clock()) });
        case 'POST /_sim/instances/adopt': {
          const list = Array.isArray(input['instances']) ? (input['instances'] as AdoptedInstance[]) : [];
          return json(200, { adopted: store.adopt(list, clock()) });
        }
        case 'POST /_sim/faults/stuck-transitions':
          store.stuckTransitions = input['stuck'] !== false;
          return json(200, { ok: true });
        case 'POST /_sim/faults/insufficient-capacity': {
          const [type, zone, ct] = [input['instanceType'], input['zone'], input['capacityType']];
          if (typeof type !== 'string' || typeof zone !== 'string') return json(400, { error: 'instanceType and zone must be strings' });
          if (ct !== undefined && ct !== 'spot' && ct !== 'on-demand') return json(400, { error: 'capacityType must be spot or on-demand' });
          faults.insufficientCapacity({ instanceType: type, zone, ...(ct ? { capacityType: ct } : {}) }, input['on'] !== false);
          return json(200, { ok: true });
        }
        case 'POST /_sim/spot/interruption-warning':
        case 'POST /_sim/spot/rebalance-recommendation':
        case 'POST /_sim/spot/interrupt': {
          const id = input['instanceId'];
          if (typeof id !== 'string') return json(400, { error: 'instanceId must be a string' });
          if (!store.get(id, clock())) return json(404, { error: `no instance ${id}` });
          if (route.endsWith('interruption-warning')) spotInterruptionWarning(id, typeof input['leadSeconds'] === 'number' ? { leadMs: input['leadSeconds'] * 1000 } : {});
          else if (route.endsWith('rebalance-recommendation')) queue.push({ kind: 'rebalance_recommendation', instanceId: id, at: clock() });
          else interruptSpot(id);
          return json(200, { ok: true });
        }
        case 'GET /_sim/interruption-queue':
          return json(200, { messages: queue });
        case 'POST /_sim/faults/throttle-next':
          faults.throttleNext(Number(input['n']));
          return json(200, { ok: true });
        case 'POST /_sim/faults/throttle-rate':
          faults.throttleRate(Number(input['rate']));
          return json(200, { ok: true });
        case 'POST /_sim/faults/unauthorized':
          if (typeof input['action'] !== 'string') return json(400, { error: 'action must be a string' });
          faults.unauthorized(input['action']);
          return json(200, { ok: true });
        case 'DELETE /_sim/faults':
          faults.clear();
          return json(200, { ok: true });
        default:
          return json(404, { error: `no such control: ${route}` });
      }
    } catch (e) {
      return json(400, { error: (e as Error).message });
    }
  };

  const interruptSpot = (instanceId: string): void => {
    store.interruptSpot(instanceId, clock());
    queue.push({ kind: 'instance_terminated', instanceId, at: clock() });
  };
  const spotInterruptionWarning = (instanceId: string, o: { leadMs?: number } = {}): void => {
    const now = clock();
    if (!store.get(instanceId, now)) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${instanceId}' does not exist`);
    queue.push({ kind: 'spot_interrupted', instanceId, at: now });
    store.terminate(instanceId, now, { spot: true, at: new Date(now.getTime() + (o.leadMs ?? SPOT_WARNING_MS)) });
  };
  const spotPrice = (type: string, zone: string): number => {
    const now = clock();
    const slot = Math.floor(now.getTime() / 60_000);
    const key = `${type}:${zone}`;
    const memo = priceMemo.get(key);
    if (memo && memo.slot === slot) return memo.price;
    const points = spotPriceHistory(zones, seed, { instanceTypes: (t) => t === type, zones: (z) => z === zone, products: (p) => p === 'Linux/UNIX', start: now, end: now });
    const price = points[0]?.spotPrice ?? Number.NaN;
    priceMemo.set(key, { slot, price });
    return price;
  };
  const spotCapacity = (type: string, zone: string): number => {
    const set = capacityOverride.get(`${type}:${zone}`);
    if (set !== undefined) return set;
    const spec = instanceType(type);
    if (!spec) return 0;
    return { low: 1, medium: 0.8, high: 0.55 }[volatilityOf(spec, seed)];
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://sim');
      if (url.pathname.startsWith('/_sim/')) return handleControl(req.method ?? 'GET', url.pathname, body, res);
      handleEc2(req.method === 'GET' ? url.search.slice(1) : body, res);
    });
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    region,
    zones,
    faults,
    calls: () => [...calls],
    resetCalls: () => {
      calls.length = 0;
    },
    instances: () => store.list(clock()),
    adopt: (list) => store.adopt(list, clock()),
    adoptNodes: (nodes) => store.adopt(adoptionsOf(nodes), clock()),
    interruptSpot,
    spotInterruptionWarning,
    rebalanceRecommendation: (instanceId) => {
      if (!store.get(instanceId, clock())) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${instanceId}' does not exist`);
      queue.push({ kind: 'rebalance_recommendation', instanceId, at: clock() });
    },
    receiveInterruptionMessages: () => queue.splice(0, queue.length),
    launch: (r) => store.launch(r, clock()),
    terminate: (instanceId) => store.terminate(instanceId, clock()),
    instance: (instanceId) => store.get(instanceId, clock()),
    spotPrice,
    spotCapacity,
    setSpotCapacity: (type, zone, capacity) => {
      if (capacity === null) capacityOverride.delete(`${type}:${zone}`);
      else if (!(capacity >= 0 && capacity <= 1)) throw new RangeError(`capacity must be within [0, 1], got ${capacity}`);
      else capacityOverride.set(`${type}:${zone}`, capacity);
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** formatPrice — EC2 prints Spot prices with six decimals ("0.038300"). */
function formatPrice(p: number): string {
  return p.toFixed(6);
}

/** NodeLike — what {@link Ec2Sim.adoptNodes} reads of a Node. */
export interface NodeLike {
  readonly metadata?: { readonly labels?: Readonly<Record<string, string>> };
  readonly spec?: { readonly providerID?: string };
}

/** adoptionsOf — the EC2 instances behind Node objects (providerID → id and zone, labels → type and zone). */
function adoptionsOf(nodes: readonly NodeLike[]): AdoptedInstance[] {
  return nodes.flatMap((n) => {
    const id = parseProviderId(n.spec?.providerID);
    const labels = n.metadata?.labels ?? {};
    if (!id) return [];
    return [{ instanceId: id.instanceId, instanceType: instanceTypeOf(labels) ?? 'm5.large', availabilityZone: zoneOf(labels) ?? id.zone ?? 'us-east-1a' }];
  });
}
