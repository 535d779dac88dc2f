import type { InstanceTypeFacts } from '@nodes-manager/contracts';
import {
  DescribeInstancesCommand,
  EC2Client,
  EC2ServiceException,
  StopInstancesCommand,
  TerminateInstancesCommand,
  paginateDescribeInstanceTypes,
  paginateDescribeSpotPriceHistory,
  RunInstancesCommand,
  type _InstanceType,
  type RunInstancesCommandInput,
  type Tag,
} from '@aws-sdk/client-ec2';
import type { ErrorCode } from '@nodes-manager/contracts';
import { inChildSpan, SpanKind, tracingOn } from '@nodes-manager/platform';
import type { SpotPriceSample } from '../../domain/spot-price.js';

/** Ec2ErrorCode — the shared error codes (libs/contracts ErrorCodes) this adapter raises. */
export type Ec2ErrorCode = Extract<
  ErrorCode,
  'AWS_NOT_CONFIGURED' | 'EC2_UNAUTHORIZED' | 'EC2_THROTTLED' | 'CONFLICT' | 'VALIDATION_FAILED' | 'UPSTREAM_ERROR'
>;

/** Ec2Error — an EC2 failure with a stable code; `details` carries EC2's own code, HTTP status and request id. */
export class Ec2Error extends Error {
  constructor(
    readonly code: Ec2ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'Ec2Error';
  }
}

export interface Ec2AdapterOptions {
  /** Undefined → every method fails with AWS_NOT_CONFIGURED naming AWS_REGION. */
  readonly region?: string;
  /** Undefined → the SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile, IRSA, …). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string };
  /** Undefined → the SDK's own resolution, which honours AWS_ENDPOINT_URL_EC2 / AWS_ENDPOINT_URL. */
  readonly endpoint?: string;
  /** SDK attempts per call, retries included (default 3, the SDK's). */
  readonly maxAttempts?: number;
  /** Called with every failed EC2 call (metrics: EC2 API errors by action and code). */
  readonly onError?: (action: string, err: Ec2Error) => void;
}

export interface SpotPriceQuery {
  readonly instanceTypes?: readonly string[];
  readonly zones?: readonly string[];
  /** Default `['Linux/UNIX']`. */
  readonly productDescriptions?: readonly string[];
  readonly start: Date;
  readonly end: Date;
}

/** InstanceTypeSummary — what the service needs of DescribeInstanceTypes: the `instancetypes.list` item of the contracts. */
export type InstanceTypeSummary = InstanceTypeFacts;

export type LaunchSpec =
  | { readonly launchTemplate: { readonly id?: string; readonly name?: string; readonly version?: string } }
  | { readonly imageId: string; readonly subnetId?: string; readonly securityGroupIds?: readonly string[] };

export type RunInstancesRequest = LaunchSpec & {
  /** Idempotency key: the same token never starts a second set of instances. At most 64 ASCII characters. */
  readonly clientToken: string;
  readonly dryRun: boolean;
  readonly instanceType: string;
  /** Exactly this many instances or none (MinCount = MaxCount). */
  readonly count: number;
  /** Launch into this zone (EC2 `Placement.AvailabilityZone`); undefined lets the subnet or EC2 choose. */
  readonly availabilityZone?: string;
  /** Who asked; recorded on every instance as `nodes-manager/requested-by`. */
  readonly requestedBy: string;
  readonly tags?: Readonly<Record<string, string>>;
};

export interface LaunchedInstance {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly availabilityZone?: string;
  readonly state?: string;
  readonly launchTime?: Date;
}

export type RunInstancesResult =
  | { readonly dryRun: true; readonly wouldSucceed: true }
  | { readonly dryRun: false; readonly reservationId: string; readonly instances: readonly LaunchedInstance[] };

export const MANAGED_TAG = 'nodes-manager/managed';
export const REQUESTED_BY_TAG = 'nodes-manager/requested-by';

const SPOT_PAGE_SIZE = 1000;
const TYPES_PAGE_SIZE = 100;

/**
 * Ec2Adapter — spot-advisor's port to EC2 over @aws-sdk/client-ec2: paged price history and instance types, and
 * idempotent RunInstances. SDK failures become {@link Ec2Error}s (see {@link toEc2Error}).
 */
export class Ec2Adapter {
  private client?: EC2Client;

  constructor(private readonly opts: Ec2AdapterOptions = {}) {}

  /** describeSpotPriceHistory — every price change in [start, end] plus the one in effect at start, all pages. */
  async describeSpotPriceHistory(q: SpotPriceQuery): Promise<SpotPriceSample[]> {
    const client = this.ec2();
    const out: SpotPriceSample[] = [];
    await guard(this.opts.onError, 'DescribeSpotPriceHistory', async () => {
      const pages = paginateDescribeSpotPriceHistory(
        { client, pageSize: SPOT_PAGE_SIZE },
        {
          StartTime: q.start,
          EndTime: q.end,
          ProductDescriptions: [...(q.productDescriptions ?? ['Linux/UNIX'])],
          ...(q.instanceTypes?.length ? { InstanceTypes: [...q.instanceTypes] as _InstanceType[] } : {}),
          ...(q.zones?.length ? { Filters: [{ Name: 'availability-zone', Values: [...q.zones] }] } : {}),
        },
      );
      for await (const page of pages) {
        for (const p of page.SpotPriceHistory ?? []) {
          const usdPerHour = Number(p.SpotPrice);
          if (!p.InstanceType || !p.AvailabilityZone || !p.Timestamp || !Number.isFinite(usdPerHour)) continue;
          out.push({
            instanceType: p.InstanceType,
            availabilityZone: p.AvailabilityZone,
            ...(p.ProductDescription ? { productDescription: p.ProductDescription } : {}),
            usdPerHour,
            timestamp: p.Timestamp,
          });
        }
      }
    });
    return out;
  }

  /** describeInstanceTypes — all instance types offered in the region (or the named ones), all pages. */
  async describeInstanceTypes(instanceTypes?: readonly string[]): Promise<InstanceTypeSummary[]> {
    const client = this.ec2();
    const out: InstanceTypeSummary[] = [];
    await guard(this.opts.onError, 'DescribeInstanceTypes', async () => {
      const pages = paginateDescribeInstanceTypes(
        instanceTypes?.length ? { client } : { client, pageSize: TYPES_PAGE_SIZE },
        instanceTypes?.length ? { InstanceTypes: [...instanceTypes] as _InstanceType[] } : {},
      );
      for await (const page of pages) {
        for (const t of page.InstanceTypes ?? []) {
          if (!t.InstanceType) continue;
          const gpus = t.GpuInfo?.Gpus ?? [];
          const neurons = t.NeuronInfo?.NeuronDevices ?? [];
          out.push({
            name: t.InstanceType,
            vcpu: t.VCpuInfo?.DefaultVCpus ?? 0,
            memoryMiB: t.MemoryInfo?.SizeInMiB ?? 0,
            gpus: [...gpus, ...neurons].reduce((n, g) => n + (g.Count ?? 0), 0),
            gpuNames: [...gpus, ...neurons].map((g) => g.Name ?? 'unknown'),
            architectures: t.ProcessorInfo?.SupportedArchitectures ?? [],
            supportsSpot: (t.SupportedUsageClasses ?? []).includes('spot'),
          });
        }
      }
    });
    return out;
  }

  /**
   * runInstances — launch `count` instances, tagged `nodes-manager/managed=true` and
   * `nodes-manager/requested-by=<requestedBy>` (these win over caller tags of the same key). A dry run answers
   * `{dryRun: true, wouldSucceed: true}` when EC2 says it would have succeeded, and starts nothing.
   */
  async runInstances(req: RunInstancesRequest): Promise<RunInstancesResult> {
    const client = this.ec2();
    const tags: Tag[] = Object.entries({ ...req.tags, [MANAGED_TAG]: 'true', [REQUESTED_BY_TAG]: req.requestedBy }).map(
      ([Key, Value]) => ({ Key, Value }),
    );
    const launch: Partial<RunInstancesCommandInput> =
      'launchTemplate' in req
        ? {
            LaunchTemplate: {
              ...(req.launchTemplate.id ? { LaunchTemplateId: req.launchTemplate.id } : {}),
              ...(req.launchTemplate.name ? { LaunchTemplateName: req.launchTemplate.name } : {}),
              ...(req.launchTemplate.version ? { Version: req.launchTemplate.version } : {}),
            },
          }
        : {
            ImageId: req.imageId,
            ...(req.subnetId ? { SubnetId: req.subnetId } : {}),
            ...(req.securityGroupIds?.length ? { SecurityGroupIds: [...req.securityGroupIds] } : {}),
          };
    try {
      const out = await client.send(
        new RunInstancesCommand({
          ...launch,
          ...(req.availabilityZone ? { Placement: { AvailabilityZone: req.availabilityZone } } : {}),
          ClientToken: req.clientToken,
          DryRun: req.dryRun,
          InstanceType: req.instanceType as _InstanceType,
          MinCount: req.count,
          MaxCount: req.count,
          TagSpecifications: [
            { ResourceType: 'instance', Tags: tags },
            { ResourceType: 'volume', Tags: tags },
          ],
        }),
      );
      return {
        dryRun: false,
        reservationId: out.ReservationId ?? '',
        instances: (out.Instances ?? []).map((i) => ({
          instanceId: i.InstanceId ?? '',
          instanceType: i.InstanceType ?? req.instanceType,
          ...(i.Placement?.AvailabilityZone ? { availabilityZone: i.Placement.AvailabilityZone } : {}),
          ...(i.State?.Name ? { state: i.State.Name } : {}),
          ...(i.LaunchTime ? { launchTime: i.LaunchTime } : {}),
        })),
      };
    } catch (e) {
      if (e instanceof EC2ServiceException && e.name === 'DryRunOperation') return { dryRun: true, wouldSucceed: true };
      const err = toEc2Error(e, 'RunInstances');
      this.opts.onError?.('RunInstances', err);
      throw err;
    }
  }

  /**
   * stopInstance / terminateInstance — one instance, as fencing needs it (`Force` skips the guest OS shutdown, which a
   * hung node cannot do). Answers EC2's previous and current state.
   */
  async fenceInstance(instanceId: string, action: 'stop' | 'terminate', force: boolean): Promise<{ previousState: string; currentState: string }> {
    const client = this.ec2();
    const name = action === 'stop' ? 'StopInstances' : 'TerminateInstances';
    try {
      const out =
        action === 'stop'
          ? (await client.send(new StopInstancesCommand({ InstanceIds: [instanceId], Force: force }))).StoppingInstances
          : (await client.send(new TerminateInstancesCommand({ InstanceIds: [instanceId] }))).TerminatingInstances;
      const change = (out ?? []).find((c) => c.InstanceId === instanceId);
      return { previousState: change?.PreviousState?.Name ?? 'unknown', currentState: change?.CurrentState?.Name ?? 'unknown' };
    } catch (e) {
      const err = toEc2Error(e, name);
      this.opts.onError?.(name, err);
      throw err;
    }
  }

  /**
   * describeInstanceStates — state, state reason code, type and zone of the named instances; ids EC2 does not know
   * are answered as `missing` (DescribeInstances fails the whole call for one unknown id, so those are retried
   * one by one).
   */
  async describeInstanceStates(instanceIds: readonly string[]): Promise<{ instances: Array<{ instanceId: string; state: string; stateReasonCode: string | null; instanceType: string | null; zone: string | null }>; missing: string[] }> {
    const client = this.ec2();
    const read = async (ids: readonly string[]) => {
      const out = await client.send(new DescribeInstancesCommand({ InstanceIds: [...ids] }));
      return (out.Reservations ?? []).flatMap((r) => r.Instances ?? []).map((i) => ({
        instanceId: i.InstanceId ?? '',
        state: i.State?.Name ?? 'unknown',
        stateReasonCode: i.StateReason?.Code ?? null,
        instanceType: i.InstanceType ?? null,
        zone: i.Placement?.AvailabilityZone ?? null,
      }));
    };
    try {
      return { instances: await read(instanceIds), missing: [] };
    } catch (e) {
      const err = toEc2Error(e, 'DescribeInstances');
      if ((err.details?.['ec2Code'] as string | undefined) !== 'InvalidInstanceID.NotFound' || instanceIds.length === 0) {
        this.opts.onError?.('DescribeInstances', err);
        throw err;
      }
      const instances: Awaited<ReturnType<typeof read>> = [];
      const missing: string[] = [];
      for (const id of instanceIds) {
        try {
          instances.push(...(await read([id])));
        } catch (inner) {
          const one = toEc2Error(inner, 'DescribeInstances');
          if ((one.details?.['ec2Code'] as string | undefined) === 'InvalidInstanceID.NotFound') missing.push(id);
          else throw one;
        }
      }
      return { instances, missing };
    }
  }

  /**
   * checkCredentials — resolves the SDK's credential chain without calling EC2; AWS_NOT_CONFIGURED when there are
   * none (or no region). For the readiness check of a service whose credentials come from the default chain.
   */
  async checkCredentials(): Promise<void> {
    const client = this.ec2();
    try {
      await client.config.credentials();
    } catch (e) {
      throw toEc2Error(e, 'ResolveCredentials');
    }
  }

  /** destroy — release the SDK client's sockets. */
  destroy(): void {
    this.client?.destroy();
    this.client = undefined;
  }

  private ec2(): EC2Client {
    if (!this.opts.region) {
      throw new Ec2Error('AWS_NOT_CONFIGURED', 'EC2 is not configured: set AWS_REGION', { missing: ['AWS_REGION'] });
    }
    this.client ??= new EC2Client({
      region: this.opts.region,
      ...(this.opts.credentials ? { credentials: this.opts.credentials } : {}),
      ...(this.opts.endpoint ? { endpoint: this.opts.endpoint } : {}),
      ...(this.opts.maxAttempts !== undefined ? { maxAttempts: this.opts.maxAttempts } : {}),
    });
    if (tracingOn()) this.client.middlewareStack.add(ec2Span(this.opts.region) as never, { step: 'initialize', name: 'nodesManagerTracing' });
    return this.client;
  }
}

/**
 * ec2Span — with tracing on, each EC2 call a traced request makes (retries included) is a CLIENT span `EC2/<Action>`
 * with the RPC attributes of the AWS SDK conventions and the request id; nothing of the request (no credential, no
 * signed header) is recorded.
 */
function ec2Span(region: string) {
  return (next: (args: unknown) => Promise<{ output?: { $metadata?: { requestId?: string; httpStatusCode?: number } } }>, context: { commandName?: string }) =>
    (args: unknown) => {
      const action = (context.commandName ?? 'Command').replace(/Command$/, '');
      const attributes = { 'rpc.system': 'aws-api', 'rpc.service': 'EC2', 'rpc.method': action, 'cloud.region': region };
      return inChildSpan(`EC2/${action}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
        const out = await next(args);
        const meta = out.output?.$metadata;
        if (meta?.requestId) span?.setAttribute('aws.request_id', meta.requestId);
        if (meta?.httpStatusCode) span?.setAttribute('http.response.status_code', meta.httpStatusCode);
        return out;
      });
    };
}

async function guard(onError: Ec2AdapterOptions['onError'], action: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    const err = toEc2Error(e, action);
    onError?.(action, err);
    throw err;
  }
}

const THROTTLED = new Set(['RequestLimitExceeded', 'Throttling', 'ThrottlingException', 'RequestThrottled', 'RequestThrottledException']);
const UNAUTHORIZED = new Set(['UnauthorizedOperation', 'AuthFailure', 'Blocked', 'OptInRequired']);
const INVALID = /^(Invalid|Missing|Unsupported)|ParameterCombination|Malformed/;

/**
 * toEc2Error — an SDK failure as a coded error: UnauthorizedOperation/AuthFailure → EC2_UNAUTHORIZED,
 * RequestLimitExceeded and other throttles → EC2_THROTTLED, IdempotentParameterMismatch → CONFLICT,
 * Invalid…/Missing… parameters → VALIDATION_FAILED, missing credentials → AWS_NOT_CONFIGURED, the rest
 * (5xx, network) → UPSTREAM_ERROR.
 */
export function toEc2Error(e: unknown, action: string): Ec2Error {
  if (e instanceof Ec2Error) return e;
  const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number; requestId?: string } };
  const name = err?.name ?? 'Error';
  const message = err?.message ?? String(e);
  const details = {
    action,
    ec2Code: name,
    ...(err?.$metadata?.httpStatusCode !== undefined ? { httpStatus: err.$metadata.httpStatusCode } : {}),
    ...(err?.$metadata?.requestId ? { requestId: err.$metadata.requestId } : {}),
  };
  if (name === 'CredentialsProviderError') {
    return new Ec2Error('AWS_NOT_CONFIGURED', `EC2 credentials not found: ${message}`, {
      ...details,
      missing: ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
    });
  }
  if (UNAUTHORIZED.has(name)) return new Ec2Error('EC2_UNAUTHORIZED', `EC2 refused ${action}: ${message}`, details);
  if (THROTTLED.has(name)) return new Ec2Error('EC2_THROTTLED', `EC2 throttled ${action}: ${message}`, details);
  if (name === 'IdempotentParameterMismatch') {
    return new Ec2Error('CONFLICT', `The client token was already used for a different ${action} request`, details);
  }
  if (e instanceof EC2ServiceException && INVALID.test(name)) {
    return new Ec2Error('VALIDATION_FAILED', `EC2 rejected ${action}: ${message}`, { ...details, errors: [{ in: 'body', field: 'body', message: `EC2 rejected it: ${message}` }] });
  }
  return new Ec2Error('UPSTREAM_ERROR', `EC2 ${action} failed: ${message}`, details);
}
