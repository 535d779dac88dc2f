/**
 * The unavailable-offerings ("ICE") cache of aws/karpenter-provider-aws (pkg/cache/unavailableofferings.go, TTL in
 * pkg/cache/cache.go): an offering that answered an insufficient-capacity error, or whose Spot instance got an
 * interruption warning, is skipped for 3 minutes. Keyed `<capacityType>:<instanceType>:<zone>`; marking an entry again
 * extends it. Time comes from the clock passed in. See docs/karpenter-simulator.md.
 */

/** UNAVAILABLE_OFFERINGS_TTL_MS — `UnavailableOfferingsTTL = 3 * time.Minute`. */
export const UNAVAILABLE_OFFERINGS_TTL_MS = 3 * 60_000;

/** Why an offering was marked: the EC2 error code of a failed launch, or the interruption message kind. */
export type UnavailableReason = 'InsufficientInstanceCapacity' | 'MaxSpotInstanceCountExceeded' | 'UnfulfillableCapacity' | 'spot_interrupted' | (string & {});

/** UNFULFILLABLE_CAPACITY_CODES — the launch errors that mark an offering (pkg/errors/errors.go). */
export const UNFULFILLABLE_CAPACITY_CODES: readonly string[] = ['InsufficientInstanceCapacity', 'MaxSpotInstanceCountExceeded', 'VcpuLimitExceeded', 'UnfulfillableCapacity', 'Unsupported', 'InsufficientFreeAddressesInSubnet', 'MaxFleetCountExceeded', 'ReservationCapacityExceeded'];

export interface UnavailableOffering {
  readonly capacityType: string;
  readonly instanceType: string;
  readonly zone: string;
  readonly reason: UnavailableReason;
  readonly until: Date;
}

/** offeringKey — Karpenter's cache key, `<capacityType>:<instanceType>:<zone>`. */
export function offeringKey(instanceType: string, zone: string, capacityType: string): string {
  return `${capacityType}:${instanceType}:${zone}`;
}

export class UnavailableOfferings {
  private readonly entries = new Map<string, UnavailableOffering>();

  constructor(
    private readonly now: () => Date,
    private readonly ttlMs = UNAVAILABLE_OFFERINGS_TTL_MS,
  ) {}

  /** markUnavailable — (re)starts the entry's 3 minutes, as `SetDefault` does even for a key already there. */
  markUnavailable(instanceType: string, zone: string, capacityType: string, reason: UnavailableReason): UnavailableOffering {
    const entry = { capacityType, instanceType, zone, reason, until: new Date(this.now().getTime() + this.ttlMs) };
    this.entries.set(offeringKey(instanceType, zone, capacityType), entry);
    return entry;
  }

  isUnavailable(instanceType: string, zone: string, capacityType: string): boolean {
    const key = offeringKey(instanceType, zone, capacityType);
    const e = this.entries.get(key);
    if (!e) return false;
    if (e.until.getTime() <= this.now().getTime()) {
      this.entries.delete(key);
      return false;
    }
    return true;
  }

  /** list — the entries still in force, soonest to expire first. */
  list(): UnavailableOffering[] {
    const now = this.now().getTime();
    for (const [k, e] of this.entries) if (e.until.getTime() <= now) this.entries.delete(k);
    return [...this.entries.values()].sort((a, b) => a.until.getTime() - b.until.getTime());
  }

  flush(): void {
    this.entries.clear();
  }
}
