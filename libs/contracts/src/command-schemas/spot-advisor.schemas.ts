import { FENCING_ACTIONS } from '../fencing.js';
import { anyObject, arrayOf, bool, closed, int, mapOf, nullableNum, nullableStr, num, oneOf, open, str, time, type JsonSchema } from '../json-schema.js';
import { type CommandSchema } from './command-schema.js';

const region: JsonSchema = { ...str('an AWS region such as us-east-1'), pattern: '^[a-z]{2}(-[a-z]+)+-\\d$' };
const names = (description: string): JsonSchema => ({ ...arrayOf({ ...str(), minLength: 1 }, description), maxItems: 1000 });
const instanceId: JsonSchema = { ...str('an EC2 instance id (i-…)'), pattern: '^i-[0-9a-f]{8,17}$' };
const INTERRUPTION_BUCKETS = ['<5%', '5-10%', '10-15%', '15-20%', '>20%'];

/** Every answer from the cached market or catalog says how old its data is. */
const freshness = {
  fetchedAt: time(),
  stale: bool('the data is older than the cache time (a refresh failed)'),
  ageSeconds: int(),
  refreshError: open({ code: str(), message: str() }, ['code']),
};
const freshnessOptional = ['refreshError'];
const window = open({ hours: num(), from: time(), to: time() });
const onDemand = anyObject('where On-Demand prices come from (the bundled table, its date and region)');

const marketItem = open(
  {
    instanceType: str(),
    availabilityZone: str(),
    spotUsdPerHour: num(),
    spotPriceSince: time(),
    onDemandUsdPerHour: nullableNum(),
    onDemandKnown: bool(),
    savingsPct: nullableNum(),
    trend: open({ direction: str(), changePct: nullableNum(), fromUsdPerHour: nullableNum() }, ['changePct', 'fromUsdPerHour']),
    interruption: open(
      { bucket: { type: ['string', 'null'] }, frequencyPct: { type: ['array', 'null'], items: num() }, basis: str(), priceToOnDemand: nullableNum(), explanation: str(), volatility: { type: ['object', 'null'] } },
      ['frequencyPct', 'priceToOnDemand', 'explanation', 'volatility'],
    ),
  },
  ['spotPriceSince', 'trend', 'interruption'],
);

const catalogItem = open(
  {
    name: str(),
    vcpu: num(),
    memoryMiB: num(),
    gpus: int(),
    gpuNames: arrayOf(str()),
    architectures: arrayOf(str()),
    supportsSpot: bool(),
    onDemandUsdPerHour: nullableNum(),
    onDemandKnown: bool(),
  },
  ['onDemandUsdPerHour', 'onDemandKnown'],
);

const tags = { ...mapOf({ ...str(), maxLength: 256 }), maxProperties: 50 };

export const SPOT_ADVISOR_COMMAND_SCHEMAS = {
  'spot.market': {
    summary: 'Spot prices with saving, trend and interruption estimate by instance type and zone, from the cached price history.',
    request: closed({ region, instanceTypes: names('instance types; all when absent'), zones: names('zones; all when absent') }, ['region', 'instanceTypes', 'zones']),
    reply: open(
      { region: str(), window, ...freshness, onDemand, measured: open(
          { source: str(), available: bool(), asOf: nullableStr(), minSamples: int(), horizonHours: num(), pools: int(), detail: str() },
          ['asOf', 'minSamples', 'horizonHours', 'pools', 'detail'],
          'the rebalance ledger behind measured estimates',
        ), items: arrayOf(marketItem), unmatched: open({ instanceTypes: arrayOf(str()), zones: arrayOf(str()) }) },
      [...freshnessOptional, 'onDemand', 'measured', 'unmatched'],
      'Spot prices with trend and interruption estimate by instance type and zone (served from a cache; `stale` flags old data).',
    ),
  },
  'spot.prices': {
    summary: "Spot and On-Demand price and interruption bucket per (instance type, zone), for scheduler-scoring's cost score.",
    request: closed({ region, instanceTypes: names('instance types; all when absent'), zones: names('zones; all when absent') }, ['region', 'instanceTypes', 'zones']),
    reply: open(
      {
        region: str(),
        ...freshness,
        prices: arrayOf(
          open(
            {
              instanceType: str(),
              zone: str(),
              spotUsdPerHour: num(),
              onDemandUsdPerHour: num(),
              interruptionBucket: oneOf(INTERRUPTION_BUCKETS),
              measured: open({ samples: int(), interrupted: int(), share: num() }),
            },
            ['spotUsdPerHour', 'onDemandUsdPerHour', 'interruptionBucket', 'measured'],
          ),
          'absent fields are unknown, never zero',
        ),
      },
      freshnessOptional,
    ),
  },
  'spot.history': {
    summary: "One instance type's Spot price changes per zone over the market's window, for charts.",
    request: closed({ instanceType: { ...str(), pattern: '^[a-z0-9-]+\\.[a-z0-9-]+$' }, region }, ['region']),
    reply: open(
      {
        region: str(),
        instanceType: str(),
        window,
        ...freshness,
        zones: arrayOf(open({ zone: str(), points: arrayOf(open({ at: time(), usdPerHour: num() }), 'oldest first; the first is the price in effect at the window’s start') })),
      },
      freshnessOptional,
    ),
  },
  'instancetypes.list': {
    summary: 'The instance-type catalog (EC2 DescribeInstanceTypes, cached per region) with the bundled On-Demand price where known.',
    request: closed({ region, instanceTypes: names('instance types; all when absent') }, ['region', 'instanceTypes']),
    reply: open({ region: str(), ...freshness, onDemand, items: arrayOf(catalogItem), unknown: arrayOf(str('a requested type EC2 does not know')) }, [...freshnessOptional, 'onDemand']),
  },
  'instance.provision': {
    summary: 'Launches on-demand instances from the configured launch settings, exactly once per client token (dryRun: says what would start).',
    request: closed(
      {
        instanceType: str(),
        count: { ...int(), minimum: 1, maximum: 100 },
        clientToken: { ...str("EC2's ClientToken: retries with it launch nothing more"), pattern: '^[\\x21-\\x7e]{1,64}$' },
        dryRun: bool(),
        zone: str(),
        tags,
      },
      ['zone', 'tags'],
    ),
    reply: open(
      {
        requestId: str(),
        clientToken: str(),
        dryRun: bool(),
        region: str(),
        reservationId: str(),
        instanceType: str(),
        count: int(),
        requestedBy: str(),
        instances: arrayOf(open({ instanceId: str(), instanceType: str(), availabilityZone: str(), state: str(), launchTime: time() }, ['availabilityZone', 'launchTime'])),
        replayed: bool('this clientToken was seen before and nothing new was launched'),
      },
      ['requestId', 'region', 'reservationId', 'requestedBy', 'instances', 'replayed'],
      'The launched instances; `replayed: true` when this clientToken was seen before and nothing new was launched.',
    ),
  },
  'instance.fence': {
    summary: "Stops (with Force) or terminates one instance, for uncordon's fencing of a hung node (docs/fencing.md).",
    request: closed({ instanceId, action: oneOf(FENCING_ACTIONS), force: { ...bool('stop with Force (the default)'), default: true } }, ['force']),
    reply: open({ instanceId: str(), previousState: str(), currentState: str() }),
  },
  'instances.describe': {
    summary: 'The state and state reason of instances by id, and the ids EC2 does not know.',
    request: closed({ instanceIds: { ...arrayOf(instanceId), minItems: 1, maxItems: 1000 } }),
    reply: open({
      instances: arrayOf(open({ instanceId: str(), state: str(), stateReasonCode: nullableStr(), instanceType: nullableStr(), zone: nullableStr() })),
      missing: arrayOf(str(), 'ids EC2 does not know'),
    }),
  },
} as const satisfies Record<string, CommandSchema>;
