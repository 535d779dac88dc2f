import { instanceType } from '@nodes-manager/contracts';
import {
  anyMatch,
  boolParam,
  decodeToken,
  Ec2ApiError,
  encodeToken,
  filtersParam,
  intParam,
  listParam,
  structListParam,
  type QueryParams,
} from './query.js';
import { hash32 } from './spot-prices.js';
import type { XmlValue } from './xml.js';

/**
 * An instance spends this long `pending` after launch, `stopping` after StopInstances and `shutting-down` after
 * termination (simulator clock).
 */
export const INSTANCE_TRANSITION_MS = 5_000;

export const SIM_ACCOUNT_ID = '000000000000';
const SIM_VPC_ID = 'vpc-0sim00000000000001';

export type SimInstanceStateName = 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';

const STATE_CODES: Record<SimInstanceStateName, number> = { pending: 0, running: 16, 'shutting-down': 32, terminated: 48, stopping: 64, stopped: 80 };

/** AdoptedInstance — an instance that exists before the simulator started (a fleet node's), registered by id. */
export interface AdoptedInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly launchTime?: Date;
}

export interface SimTag {
  readonly key: string;
  readonly value: string;
}

/** SimInstance — one instance the simulator launched, as tests see it through `Ec2Sim.instances()`. */
export interface SimInstance {
  readonly instanceId: string;
  readonly reservationId: string;
  readonly imageId: string;
  readonly instanceType: string;
  readonly availabilityZone: string;
  readonly subnetId: string;
  readonly securityGroupIds: readonly string[];
  readonly launchTemplate?: { readonly id?: string; readonly name?: string; readonly version?: string };
  readonly tags: readonly SimTag[];
  readonly clientToken?: string;
  readonly privateIpAddress: string;
  readonly architecture: 'x86_64' | 'arm64';
  readonly launchTime: Date;
  readonly terminatedAt?: Date;
  readonly stoppedAt?: Date;
  /** Why it was terminated: `Client.UserInitiatedShutdown` unless Spot reclaimed it (`Server.SpotInstanceTermination`). */
  readonly stateReasonCode?: string;
  readonly state: SimInstanceStateName;
  /** `spot` for instances launched as Spot (EC2's `instanceLifecycle`); absent: On-Demand. */
  readonly capacityType?: 'spot' | 'on-demand';
}

type StoredInstance = Omit<SimInstance, 'state' | 'terminatedAt' | 'stoppedAt' | 'stateReasonCode'> & { terminatedAt?: Date; stoppedAt?: Date; stateReasonCode?: string };

/** SPOT_TERMINATION_REASON — EC2's state reason of an instance Spot reclaimed. */
export const SPOT_TERMINATION_REASON = 'Server.SpotInstanceTermination';

interface TokenRecord {
  readonly fingerprint: string;
  readonly reservationId: string;
}

/** IGNORED_FOR_IDEMPOTENCY — parameters that do not make two RunInstances requests different. */
const IGNORED_FOR_IDEMPOTENCY = new Set(['Action', 'Version', 'DryRun', 'ClientToken']);

/** InstanceStore — the simulator's instances, reservations and RunInstances client tokens. */
export class InstanceStore {
  private readonly byId = new Map<string, StoredInstance>();
  private readonly tokens = new Map<string, TokenRecord>();
  private counter = 0;
  /** When true, stop and terminate requests are accepted but the instance never leaves `stopping`/`shutting-down`. */
  stuckTransitions = false;

  constructor(
    private readonly seed: number,
    private readonly zones: readonly string[],
  ) {}

  /** adopt — registers instances that were running before the simulator started (the fleet's nodes); idempotent. */
  adopt(list: readonly AdoptedInstance[], now: Date): number {
    let added = 0;
    for (const a of list) {
      if (this.byId.has(a.instanceId)) continue;
      const spec = instanceType(a.instanceType);
      const n = ++this.counter;
      this.byId.set(a.instanceId, {
        instanceId: a.instanceId,
        reservationId: `r-${hex(hash32(this.seed, 'adopted', a.instanceId), 17)}`,
        imageId: `ami-${hex(hash32(this.seed, 'adopted-image'), 17)}`,
        instanceType: a.instanceType,
        availabilityZone: a.availabilityZone,
        subnetId: `subnet-0sim${a.availabilityZone.slice(-1)}000000000001`,
        securityGroupIds: ['sg-0sim0000000000default'],
        tags: [],
        privateIpAddress: `10.1.${(n >> 8) & 255}.${n & 255}`,
        architecture: spec?.arch === 'arm64' ? 'arm64' : 'x86_64',
        launchTime: a.launchTime ?? new Date(now.getTime() - 86_400_000),
      });
      added++;
    }
    return added;
  }

  list(now: Date): SimInstance[] {
    return [...this.byId.values()].map((i) => this.view(i, now));
  }

  /** interruptSpot — Spot reclaims the instance now: terminated, state reason `Server.SpotInstanceTermination`. */
  interruptSpot(instanceId: string, now: Date): void {
    const stored = this.byId.get(instanceId);
    if (!stored) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${instanceId}' does not exist`);
    if (stored.terminatedAt === undefined || stored.terminatedAt > now) this.byId.set(instanceId, { ...stored, terminatedAt: now, stateReasonCode: SPOT_TERMINATION_REASON });
  }

  /**
   * launch — one instance of an offering, as a Karpenter launch gets it (the simulator's Karpenter calls this in
   * process rather than CreateFleet). An offering marked short of capacity answers `InsufficientInstanceCapacity`.
   */
  launch(req: { instanceType: string; zone: string; capacityType: 'spot' | 'on-demand'; tags?: readonly SimTag[] }, now: Date): SimInstance {
    const spec = instanceType(req.instanceType);
    if (!spec) throw new Ec2ApiError('InvalidParameterValue', `Invalid value '${req.instanceType}' for InstanceType.`);
    if (!this.zones.includes(req.zone)) throw new Ec2ApiError('InvalidParameterValue', `Invalid availability zone: [${req.zone}]`);
    if (this.insufficient.has(`${req.capacityType}:${req.instanceType}:${req.zone}`)) {
      throw new Ec2ApiError(
        'InsufficientInstanceCapacity',
        `We currently do not have sufficient ${req.instanceType} capacity in the Availability Zone you requested (${req.zone}). Our system will be working on provisioning additional capacity.`,
        500,
      );
    }
    const n = ++this.counter;
    const instance: StoredInstance = {
      instanceId: `i-${hex(hash32(this.seed, 'instance', n), 8)}${hex(hash32(n, this.seed, 'instance'), 9)}`,
      reservationId: `r-${hex(hash32(this.seed, 'reservation', n), 17)}`,
      imageId: `ami-${hex(hash32(this.seed, 'karpenter-image'), 17)}`,
      instanceType: spec.name,
      availabilityZone: req.zone,
      subnetId: `subnet-0sim${req.zone.slice(-1)}000000000001`,
      securityGroupIds: ['sg-0sim0000000000default'],
      tags: req.tags ?? [],
      privateIpAddress: `10.2.${(n >> 8) & 255}.${n & 255}`,
      architecture: spec.arch === 'arm64' ? 'arm64' : 'x86_64',
      launchTime: now,
      capacityType: req.capacityType,
    };
    this.byId.set(instance.instanceId, instance);
    return this.view(instance, now);
  }

  /** Offerings (`<capacityType>:<instanceType>:<zone>`) that answer launches with InsufficientInstanceCapacity. */
  readonly insufficient = new Set<string>();

  /** terminate — ends the instance (a user's shutdown, or Spot's at `at` when `spot`); already ending: no-op. */
  terminate(instanceId: string, now: Date, opts: { spot?: boolean; at?: Date } = {}): void {
    const stored = this.byId.get(instanceId);
    if (!stored) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${instanceId}' does not exist`);
    if (stored.terminatedAt !== undefined && stored.terminatedAt.getTime() <= now.getTime()) return;
    this.byId.set(instanceId, { ...stored, terminatedAt: opts.at ?? now, stateReasonCode: opts.spot ? SPOT_TERMINATION_REASON : 'Client.UserInitiatedShutdown' });
  }

  get(instanceId: string, now: Date): SimInstance | undefined {
    const i = this.byId.get(instanceId);
    return i ? this.view(i, now) : undefined;
  }

  runInstances(params: QueryParams, now: Date): Record<string, XmlValue> {
    const minCount = requiredCount(params, 'MinCount');
    const maxCount = requiredCount(params, 'MaxCount');
    if (minCount > maxCount) {
      throw new Ec2ApiError('InvalidParameterValue', `MinCount (${minCount}) must be less than or equal to MaxCount (${maxCount}).`);
    }
    const lt = {
      id: params.get('LaunchTemplate.LaunchTemplateId'),
      name: params.get('LaunchTemplate.LaunchTemplateName'),
      version: params.get('LaunchTemplate.Version'),
    };
    const hasTemplate = lt.id !== undefined || lt.name !== undefined;
    if (lt.id !== undefined && lt.name !== undefined) {
      throw new Ec2ApiError('InvalidParameterCombination', 'Specify either LaunchTemplateId or LaunchTemplateName, not both.');
    }
    let imageId = params.get('ImageId');
    if (imageId === undefined && !hasTemplate) throw new Ec2ApiError('MissingParameter', 'The request must contain the parameter ImageId');
    if (imageId !== undefined && !/^ami-[0-9a-f]{8,17}$/.test(imageId)) {
      throw new Ec2ApiError('InvalidAMIID.Malformed', `Invalid id: "${imageId}" (expecting "ami-...")`);
    }
    imageId ??= `ami-${hex(hash32(this.seed, 'template-image', lt.id ?? lt.name ?? ''), 17)}`;
    const typeName = params.get('InstanceType') ?? (hasTemplate ? 'm5.large' : 'm1.small');
    const spec = instanceType(typeName);
    if (!spec) throw new Ec2ApiError('InvalidParameterValue', `Invalid value '${typeName}' for InstanceType.`);
    const subnetId = params.get('SubnetId');
    if (subnetId !== undefined && !/^subnet-[0-9a-z]+$/.test(subnetId)) {
      throw new Ec2ApiError('InvalidSubnetID.Malformed', `Invalid subnet ID '${subnetId}'`);
    }
    const securityGroupIds = listParam(params, 'SecurityGroupId');
    const tags: SimTag[] = [];
    for (const ts of structListParam(params, 'TagSpecification')) {
      const resourceType = ts.get('ResourceType');
      if (resourceType === undefined) throw new Ec2ApiError('MissingParameter', 'The request must contain the parameter TagSpecification.ResourceType');
      if (resourceType !== 'instance') continue;
      for (const t of structListParam(ts, 'Tag')) {
        const key = t.get('Key');
        if (!key) throw new Ec2ApiError('InvalidParameterValue', 'Tag keys must not be empty.');
        if (key.startsWith('aws:')) throw new Ec2ApiError('InvalidParameterValue', `Tag keys starting with 'aws:' are reserved for internal use`);
        tags.push({ key, value: t.get('Value') ?? '' });
      }
    }

    const clientToken = params.get('ClientToken');
    if (clientToken !== undefined && clientToken.length > 64) {
      throw new Ec2ApiError('InvalidParameterValue', 'ClientToken must be at most 64 ASCII characters.');
    }
    const fingerprint = fingerprintOf(params);
    if (clientToken !== undefined) {
      const seen = this.tokens.get(clientToken);
      if (seen && seen.fingerprint !== fingerprint) {
        throw new Ec2ApiError(
          'IdempotentParameterMismatch',
          'Arguments on this idempotent request are inconsistent with arguments used in previous request(s).',
        );
      }
      if (boolParam(params, 'DryRun')) throw dryRun();
      if (seen) return this.reservationXml(seen.reservationId, now);
    } else if (boolParam(params, 'DryRun')) {
      throw dryRun();
    }

    const reservationId = `r-${hex(hash32(this.seed, 'reservation', ++this.counter), 17)}`;
    for (let i = 0; i < maxCount; i++) {
      const n = ++this.counter;
      const zone = subnetId ? this.zones[hash32(subnetId) % this.zones.length]! : this.zones[n % this.zones.length]!;
      const instance: StoredInstance = {
        instanceId: `i-${hex(hash32(this.seed, 'instance', n), 8)}${hex(hash32(n, this.seed, 'instance'), 9)}`,
        reservationId,
        imageId,
        instanceType: spec.name,
        availabilityZone: zone,
        subnetId: subnetId ?? `subnet-0sim${zone.slice(-1)}000000000001`,
        securityGroupIds: securityGroupIds.length > 0 ? securityGroupIds : ['sg-0sim0000000000default'],
        ...(hasTemplate ? { launchTemplate: definedOnly(lt) } : {}),
        tags,
        ...(clientToken !== undefined ? { clientToken } : {}),
        privateIpAddress: `10.0.${(n >> 8) & 255}.${n & 255}`,
        architecture: spec.arch === 'arm64' ? 'arm64' : 'x86_64',
        launchTime: now,
      };
      this.byId.set(instance.instanceId, instance);
    }
    if (clientToken !== undefined) this.tokens.set(clientToken, { fingerprint, reservationId });
    return this.reservationXml(reservationId, now);
  }

  describeInstances(params: QueryParams, now: Date): Record<string, XmlValue> {
    const ids = listParam(params, 'InstanceId');
    const maxResults = intParam(params, 'MaxResults', 5, 1000);
    if (ids.length > 0 && maxResults !== undefined) {
      throw new Ec2ApiError('InvalidParameterCombination', 'The parameter instancesSet cannot be used with the parameter maxResults');
    }
    for (const id of ids) {
      if (!this.byId.has(id)) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    }
    if (boolParam(params, 'DryRun')) throw dryRun();
    const filters = filtersParam(params);
    let selected = (ids.length > 0 ? ids.map((id) => this.byId.get(id)!) : [...this.byId.values()])
      .map((i) => this.view(i, now))
      .filter((i) => filters.every((f) => instanceMatches(i, f.name, f.values)));
    let nextToken: string | undefined;
    if (maxResults !== undefined || params.has('NextToken')) {
      const offset = params.has('NextToken') ? Number(decodeToken<{ o: number }>(params.get('NextToken')!).o) : 0;
      const size = maxResults ?? 1000;
      if (offset + size < selected.length) nextToken = encodeToken({ o: offset + size });
      selected = selected.slice(offset, offset + size);
    }
    const byReservation = new Map<string, SimInstance[]>();
    for (const i of selected) byReservation.set(i.reservationId, [...(byReservation.get(i.reservationId) ?? []), i]);
    return {
      reservationSet: [...byReservation].map(([reservationId, list]) => reservationBody(reservationId, list)),
      nextToken,
    };
  }

  terminateInstances(params: QueryParams, now: Date): Record<string, XmlValue> {
    const ids = listParam(params, 'InstanceId');
    if (ids.length === 0) throw new Ec2ApiError('MissingParameter', 'The request must contain the parameter InstanceId');
    for (const id of ids) {
      if (!this.byId.has(id)) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
    }
    if (boolParam(params, 'DryRun')) throw dryRun();
    return {
      instancesSet: ids.map((id) => {
        const stored = this.byId.get(id)!;
        const previous = this.view(stored, now).state;
        if (stored.terminatedAt === undefined || stored.terminatedAt > now) this.byId.set(id, { ...stored, terminatedAt: now, stateReasonCode: 'Client.UserInitiatedShutdown' });
        const current = this.view(this.byId.get(id)!, now).state;
        return { instanceId: id, currentState: stateXml(current), previousState: stateXml(previous) };
      }),
    };
  }

  /** stopInstances — running → stopping → stopped (an EBS-backed instance); `Force` is accepted and recorded. */
  stopInstances(params: QueryParams, now: Date): Record<string, XmlValue> {
    const ids = listParam(params, 'InstanceId');
    if (ids.length === 0) throw new Ec2ApiError('MissingParameter', 'The request must contain the parameter InstanceId');
    for (const id of ids) {
      if (!this.byId.has(id)) throw new Ec2ApiError('InvalidInstanceID.NotFound', `The instance ID '${id}' does not exist`);
      const state = this.view(this.byId.get(id)!, now).state;
      if (state === 'terminated' || state === 'shutting-down') {
        throw new Ec2ApiError('IncorrectInstanceState', `This instance '${id}' is not in a state from which it can be stopped.`);
      }
    }
    if (boolParam(params, 'DryRun')) throw dryRun();
    return {
      instancesSet: ids.map((id) => {
        const stored = this.byId.get(id)!;
        const previous = this.view(stored, now).state;
        if (stored.stoppedAt === undefined) this.byId.set(id, { ...stored, stoppedAt: now });
        const current = this.view(this.byId.get(id)!, now).state;
        return { instanceId: id, currentState: stateXml(current), previousState: stateXml(previous) };
      }),
    };
  }

  private reservationXml(reservationId: string, now: Date): Record<string, XmlValue> {
    const list = [...this.byId.values()].filter((i) => i.reservationId === reservationId).map((i) => this.view(i, now));
    return reservationBody(reservationId, list) as Record<string, XmlValue>;
  }

  private view(i: StoredInstance, now: Date): SimInstance {
    const t = now.getTime();
    let state: SimInstanceStateName;
    const settled = (since: Date): boolean => !this.stuckTransitions && t - since.getTime() >= INSTANCE_TRANSITION_MS;
    // A Spot reclaim announced for later (an interruption warning) leaves the instance running until then.
    const ending = i.terminatedAt !== undefined && i.terminatedAt.getTime() <= t;
    if (ending) state = settled(i.terminatedAt!) ? 'terminated' : 'shutting-down';
    else if (i.stoppedAt !== undefined) state = settled(i.stoppedAt) ? 'stopped' : 'stopping';
    else state = t - i.launchTime.getTime() < INSTANCE_TRANSITION_MS ? 'pending' : 'running';
    const { terminatedAt: _t, stateReasonCode: _r, ...rest } = i;
    return { ...rest, state, ...(ending ? { terminatedAt: i.terminatedAt!, stateReasonCode: i.stateReasonCode ?? 'Client.UserInitiatedShutdown' } : {}) };
  }
}

function requiredCount(params: QueryParams, name: string): number {
  if (!params.has(name)) throw new Ec2ApiError('MissingParameter', `The request must contain the parameter ${name}`);
  return intParam(params, name, 1, 1000)!;
}

function dryRun(): Ec2ApiError {
  return new Ec2ApiError('DryRunOperation', 'Request would have succeeded, but DryRun flag is set.', 412);
}

function fingerprintOf(params: QueryParams): string {
  return [...params]
    .filter(([k]) => !IGNORED_FOR_IDEMPOTENCY.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function hex(n: number, width: number): string {
  let s = '';
  let x = n >>> 0;
  while (s.length < width) {
    s += (x & 15).toString(16);
    x = x >>> 4 || hash32(x, s.length);
  }
  return s;
}

function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as never;
}

function stateXml(name: SimInstanceStateName): XmlValue {
  return { code: STATE_CODES[name], name };
}

function instanceMatches(i: SimInstance, name: string, values: readonly string[]): boolean {
  if (name.startsWith('tag:')) {
    const key = name.slice(4);
    return i.tags.some((t) => t.key === key && anyMatch(values, t.value));
  }
  switch (name) {
    case 'instance-id':
      return anyMatch(values, i.instanceId);
    case 'instance-type':
      return anyMatch(values, i.instanceType);
    case 'instance-state-name':
      return anyMatch(values, i.state);
    case 'availability-zone':
      return anyMatch(values, i.availabilityZone);
    case 'reservation-id':
      return anyMatch(values, i.reservationId);
    case 'client-token':
      return anyMatch(values, i.clientToken);
    case 'image-id':
      return anyMatch(values, i.imageId);
    case 'subnet-id':
      return anyMatch(values, i.subnetId);
    case 'tag-key':
      return i.tags.some((t) => anyMatch(values, t.key));
    case 'tag-value':
      return i.tags.some((t) => anyMatch(values, t.value));
    default:
      throw new Ec2ApiError('InvalidParameterValue', `The filter '${name}' is invalid`);
  }
}

function reservationBody(reservationId: string, list: readonly SimInstance[]): XmlValue {
  return {
    reservationId,
    ownerId: SIM_ACCOUNT_ID,
    groupSet: [],
    instancesSet: list.map(instanceXml),
  };
}

function instanceXml(i: SimInstance): XmlValue {
  return {
    instanceId: i.instanceId,
    imageId: i.imageId,
    instanceState: stateXml(i.state),
    privateDnsName: `ip-${i.privateIpAddress.replace(/\./g, '-')}.ec2.internal`,
    dnsName: '',
    amiLaunchIndex: 0,
    instanceType: i.instanceType,
    launchTime: i.launchTime,
    placement: { availabilityZone: i.availabilityZone, tenancy: 'default' },
    monitoring: { state: 'disabled' },
    subnetId: i.subnetId,
    vpcId: SIM_VPC_ID,
    privateIpAddress: i.privateIpAddress,
    groupSet: i.securityGroupIds.map((groupId) => ({ groupId })),
    architecture: i.architecture,
    rootDeviceType: 'ebs',
    rootDeviceName: '/dev/xvda',
    virtualizationType: 'hvm',
    clientToken: i.clientToken ?? '',
    tagSet: i.tags.length > 0 ? i.tags.map((t) => ({ key: t.key, value: t.value })) : undefined,
    hypervisor: 'xen',
    ebsOptimized: false,
    stateReason:
      (i.state === 'terminated' || i.state === 'shutting-down') && i.stateReasonCode === SPOT_TERMINATION_REASON
        ? { code: SPOT_TERMINATION_REASON, message: `${SPOT_TERMINATION_REASON}: Spot instance termination` }
        : i.state === 'terminated' || i.state === 'shutting-down' || i.state === 'stopped' || i.state === 'stopping'
          ? { code: 'Client.UserInitiatedShutdown', message: 'Client.UserInitiatedShutdown: User initiated shutdown' }
        : undefined,
  };
}
