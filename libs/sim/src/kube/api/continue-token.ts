// The list `continue` token: the resource version of the first page and the key to resume after, as the real
// API server's opaque base64 JSON.
import { badRequest } from '../errors.js';

export interface ContinueToken {
  rv: number;
  start: string;
}

export const encodeContinue = (t: ContinueToken): string => Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', ...t })).toString('base64url');
export function decodeContinue(s: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('shape');
    return t;
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data');
  }
}
