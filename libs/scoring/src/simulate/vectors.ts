// Resource vectors [cpuMilli, memoryBytes, gpu, pods] and the small arithmetic every packer shares.
import type { ResourceRequests } from '../types.js';
import { DIMS, MiB } from './types.js';

export const vec = (r: ResourceRequests): number[] => [r.cpuMilli, r.memoryBytes, r.gpu, r.pods ?? 1];

/** howMany — how many pods of size `req` fit into `free` (Infinity when the pod asks for nothing). */
export function howMany(req: readonly number[], free: ArrayLike<number>): number {
  let k = Infinity;
  for (let d = 0; d < DIMS; d++) {
    if (req[d]! > 0) k = Math.min(k, Math.floor(free[d]! / req[d]! + 1e-9));
  }
  return Math.max(0, k);
}

/** Size used to order pods "decreasing": cpu cores + memory in 4 GiB units + 8 per GPU (a vCPU:4 GiB node). */
export const sizeOf = (req: readonly number[]): number => req[0]! / 1000 + req[1]! / (4 * 1024 * MiB) + 8 * req[2]!;

export const dominantShare = (req: readonly number[], alloc: readonly number[]): number => {
  let s = 0;
  for (let d = 0; d < DIMS; d++) if (alloc[d]! > 0) s = Math.max(s, req[d]! / alloc[d]!);
  return s;
};

export const roundUsd = (x: number): number => Math.round(x * 1e6) / 1e6;
