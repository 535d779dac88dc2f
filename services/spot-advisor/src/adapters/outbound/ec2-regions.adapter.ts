import { Ec2Adapter, type Ec2AdapterOptions } from './ec2.adapter.js';

/** Ec2Settings — how every region's adapter is built; `endpoint`/`maxAttempts` are for tests against the simulator. */
export type Ec2Settings = Omit<Ec2AdapterOptions, 'region'>;

/**
 * Ec2Regions — one {@link Ec2Adapter} (one SDK client) per region asked about, built lazily with the same
 * credentials. Regions are validated by the gateway, so the map stays as small as the set of real regions used.
 */
export class Ec2Regions {
  private readonly adapters = new Map<string, Ec2Adapter>();
  constructor(private readonly settings: Ec2Settings) {}

  for(region: string): Ec2Adapter {
    let a = this.adapters.get(region);
    if (!a) this.adapters.set(region, (a = new Ec2Adapter({ ...this.settings, region })));
    return a;
  }

  destroy(): void {
    for (const a of this.adapters.values()) a.destroy();
    this.adapters.clear();
  }
}
