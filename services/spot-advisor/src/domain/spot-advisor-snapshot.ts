import type { InterruptionBucket } from './spot-price.js';

/**
 * SPOT_ADVISOR_SNAPSHOT — a small, HAND-ENTERED, APPROXIMATE table of "frequency of interruption" buckets in the
 * style of the AWS Spot Instance Advisor (https://aws.amazon.com/ec2/spot/instance-advisor/), for Linux in
 * us-east-1, entered on {@link SPOT_ADVISOR_SNAPSHOT_DATE}.
 *
 * What it is: a rough prior typed in by this project, reflecting the ranges that page commonly shows for these
 * families (general-purpose and compute types mostly low, GPU types higher). What it is not: an export or copy of
 * AWS data, a measurement, or current. The Advisor's buckets change month to month and differ per region and
 * OS; AWS offers no API for them. {@link estimateInterruption} only ever combines this with our own price-based
 * estimate and labels the result `price-volatility+spot-advisor-snapshot`; every response names it as a snapshot.
 * Types not listed here have no snapshot bucket (we never fill gaps by guessing). Refresh by hand, and change the
 * date, when you compare it with the live Advisor.
 */
export const SPOT_ADVISOR_SNAPSHOT_DATE = '2026-11-30';
export const SPOT_ADVISOR_SNAPSHOT_REGION = 'us-east-1';
export const SPOT_ADVISOR_SNAPSHOT_OS = 'Linux';

export const SPOT_ADVISOR_SNAPSHOT: Readonly<Record<string, InterruptionBucket>> = {
  'm5.large': '<5%',
  'm5.xlarge': '<5%',
  'm5.2xlarge': '5-10%',
  'm6i.large': '<5%',
  'm6i.xlarge': '<5%',
  'm6g.large': '<5%',
  'c5.large': '5-10%',
  'c5.xlarge': '5-10%',
  'c6i.large': '<5%',
  'c6g.large': '<5%',
  'r5.large': '<5%',
  'r6i.large': '<5%',
  't3.medium': '<5%',
  't3.large': '5-10%',
  'g4dn.xlarge': '10-15%',
  'g5.xlarge': '15-20%',
  'p3.2xlarge': '>20%',
};

/** advisorBucketFor — the snapshot bucket for a type in a region, or undefined outside the snapshot's region or list. */
export function advisorBucketFor(region: string, instanceType: string): InterruptionBucket | undefined {
  if (region !== SPOT_ADVISOR_SNAPSHOT_REGION) return undefined;
  return SPOT_ADVISOR_SNAPSHOT[instanceType];
}
