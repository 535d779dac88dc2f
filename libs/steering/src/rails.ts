import type { PoolHealth, PoolHealthPrevious } from './pool-health.js';
import { poolKey } from '@nodes-manager/contracts';

const HOUR = 3_600_000;

/**
 * limitAvoidEntries — the hourly rail on `avoid` (docs/steering.md#the-rails): of the decisions entering `avoid`,
 * at most `maxPerHour` minus those entered in the last hour (`recentEntries`) go through — bursts first, then the
 * highest lower bound of the share. The others keep their previous state (reason `avoid-rate-rail`, the rule's own
 * sentence kept after it) and are decided again on the next pass: a rail delays, it does not forget.
 */
export function limitAvoidEntries(
  decisions: readonly PoolHealth[],
  previous: ReadonlyMap<string, PoolHealthPrevious>,
  recentEntries: readonly Date[],
  now: Date,
  maxPerHour: number,
): PoolHealth[] {
  const spent = recentEntries.filter((d) => now.getTime() - d.getTime() < HOUR && d.getTime() <= now.getTime()).length;
  let left = Math.max(0, maxPerHour - spent);
  const entering = decisions
    .filter((d) => d.changed && d.state === 'avoid')
    .sort((a, b) => Number(b.reason === 'burst') - Number(a.reason === 'burst') || (b.evidence.interval95?.[0] ?? 0) - (a.evidence.interval95?.[0] ?? 0) || poolKey(a.pool).localeCompare(poolKey(b.pool)));
  const held = new Set<PoolHealth>();
  for (const d of entering) {
    if (left > 0) left -= 1;
    else held.add(d);
  }
  return decisions.map((d) => {
    if (!held.has(d)) return d;
    const p = previous.get(poolKey(d.pool));
    return {
      ...d,
      state: p?.state ?? 'healthy',
      since: p?.since ?? now,
      changed: false,
      reason: 'avoid-rate-rail',
      sentence: `Kept ${p?.state ?? 'healthy'}: the limit of ${maxPerHour} pool${maxPerHour === 1 ? '' : 's'} moved to avoid per hour is reached. ${d.sentence}`,
      basisFrom: p?.basisFrom ?? null,
      restoreAt: null,
    };
  });
}
