/**
 * A Spot pool — one instance type in one zone — and its key, `instanceType/zone`: how prices, pool health, the
 * rebalance figures and the steering records are keyed. Built and read only here. Data only.
 */

/** SpotPool — an instance type in a zone. */
export interface SpotPool {
  readonly instanceType: string;
  readonly zone: string;
}

/** PoolKey — a pool's key, `m5.large/us-east-1a`. */
export type PoolKey = `${string}/${string}`;

/** poolKey — the key of a pool (of anything that names an instance type and a zone). */
export const poolKey = (p: SpotPool): PoolKey => `${p.instanceType}/${p.zone}`;

/**
 * poolOfKey — the pool a key names. An instance type never holds a `/` (EC2's names are `family.size`) while a zone
 * name might one day: the key splits at its first `/`.
 */
export function poolOfKey(key: string): SpotPool {
  const at = key.indexOf('/');
  if (at <= 0) throw new Error(`not a pool key (instanceType/zone): ${JSON.stringify(key)}`);
  return { instanceType: key.slice(0, at), zone: key.slice(at + 1) };
}
