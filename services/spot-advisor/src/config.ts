import { assertRetention, commonShape, COMMON_SECRETS, DEFAULT_HEALTH_PORTS, defineConfigSpec, env, loadConfig, retentionShape } from '@nodes-manager/platform';
import { spotAdvisorRetention } from './retention.js';

/**
 * spot-advisor's configuration (README table). AWS is optional: without `AWS_REGION` the service starts degraded
 * and answers EC2-backed commands with AWS_NOT_CONFIGURED. EC2 endpoints come from the SDK's own
 * `AWS_ENDPOINT_URL_EC2` / `AWS_ENDPOINT_URL`, never from a variable of ours.
 */
export const spotAdvisorConfigSpec = defineConfigSpec({
  service: 'spot-advisor',
  shape: {
    ...commonShape,
    HEALTH_PORT: env.port(DEFAULT_HEALTH_PORTS['spot-advisor']),
    AWS_REGION: env.optionalString(),
    AWS_ACCESS_KEY_ID: env.optionalString(),
    AWS_SECRET_ACCESS_KEY: env.optionalString(),
    /** How long one region's Spot prices are served before EC2 is asked again. */
    SPOT_PRICE_CACHE_SECONDS: env.number({ dflt: 300, min: 1, int: true }),
    /** The trailing window of Spot price history behind trend and interruption estimate (default 7 days). */
    SPOT_PRICE_WINDOW_HOURS: env.number({ dflt: 168, min: 1, max: 2160, int: true }),
    /** How long one region's DescribeInstanceTypes answer is served (types change rarely). */
    INSTANCE_TYPES_CACHE_SECONDS: env.number({ dflt: 3600, min: 1, int: true }),
    /** Launch configuration of `POST /api/v1/instances`: a launch template (id or name), else an AMI + network. */
    PROVISION_LAUNCH_TEMPLATE_ID: env.optionalString(),
    PROVISION_LAUNCH_TEMPLATE_NAME: env.optionalString(),
    PROVISION_LAUNCH_TEMPLATE_VERSION: env.optionalString(),
    PROVISION_IMAGE_ID: env.optionalString(),
    PROVISION_SUBNET_ID: env.optionalString(),
    PROVISION_SECURITY_GROUP_IDS: env.list([]),
    /** Rebalances with a known follow-up a pool needs before its estimate uses "measured in this cluster". */
    SPOT_MEASURED_MIN_SAMPLES: env.number({ dflt: 20, min: 1, int: true }),
    /** How long uncordon's rebalance figures are reused before it is asked again. */
    SPOT_MEASURED_CACHE_SECONDS: env.number({ dflt: 30, min: 1, int: true }),
    /** How long price samples and provisioning requests are kept (docs/retention.md). */
    ...retentionShape(spotAdvisorRetention),
  },
  secrets: [...COMMON_SECRETS, 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'],
});

/** SPOT_ADVISOR_CONFIG — the Nest token of the validated config. */
export const SPOT_ADVISOR_CONFIG = Symbol('SPOT_ADVISOR_CONFIG');

export type SpotAdvisorConfig = ReturnType<typeof loadSpotAdvisorConfig>;
export const loadSpotAdvisorConfig = (source: NodeJS.ProcessEnv = process.env) => assertRetention(spotAdvisorRetention, loadConfig(spotAdvisorConfigSpec, source));

/**
 * awsConfigProblem — why EC2 cannot be used with this config, or undefined: no `AWS_REGION`, or only one of the two
 * key variables (with neither, the SDK's default chain — profile, web identity, instance role — applies).
 */
export function awsConfigProblem(c: Pick<SpotAdvisorConfig, 'AWS_REGION' | 'AWS_ACCESS_KEY_ID' | 'AWS_SECRET_ACCESS_KEY'>):
  | { message: string; missing: string[] }
  | undefined {
  if (!c.AWS_REGION) return { message: 'AWS_REGION is not set', missing: ['AWS_REGION'] };
  if (c.AWS_ACCESS_KEY_ID && !c.AWS_SECRET_ACCESS_KEY) return { message: 'AWS_SECRET_ACCESS_KEY is not set (AWS_ACCESS_KEY_ID is)', missing: ['AWS_SECRET_ACCESS_KEY'] };
  if (!c.AWS_ACCESS_KEY_ID && c.AWS_SECRET_ACCESS_KEY) return { message: 'AWS_ACCESS_KEY_ID is not set (AWS_SECRET_ACCESS_KEY is)', missing: ['AWS_ACCESS_KEY_ID'] };
  return undefined;
}
