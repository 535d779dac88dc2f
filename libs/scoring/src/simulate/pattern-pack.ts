// Packing by the configuration LP's patterns, rounded down, with the greedy for what is left.
import type { ConfigurationBound } from './configuration-lp.js';
import { dualGreedy } from './greedy.js';
import { NewNodes } from './new-nodes.js';
import type { Group, Offering } from './types.js';
import { sizeOf } from './vectors.js';

/**
 * patternPack — buy ⌊x_j⌋ nodes of each pattern of the configuration LP (as far as pods remain), then the
 * rest with the greedy at the LP's pod prices. Mutates `remaining`.
 */
export function patternPack(groups: Group[], offerings: readonly Offering[], cb: ConfigurationBound): NewNodes {
  const out = new NewNodes();
  cb.columns.forEach((c, j) => {
    if (!c.o) return;
    let reps = Math.floor(cb.x[j]! + 1e-9);
    for (let g = 0; g < groups.length && reps > 0; g++) if (c.k[g]! > 0) reps = Math.min(reps, Math.floor(groups[g]!.remaining / c.k[g]!));
    if (reps <= 0) return;
    for (let g = 0; g < groups.length; g++) groups[g]!.remaining -= reps * c.k[g]!;
    out.add(c.o, reps);
  });
  const rest = dualGreedy(groups, offerings, cb.y.map((v, g) => v + 1e-6 * sizeOf(groups[g]!.req)));
  out.merge(rest);
  return out;
}
