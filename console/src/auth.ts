/**
 * The user's bearer token: from the sign-in field or the URL fragment `#token=…` (a fragment never reaches the
 * server, so the token is in no access log), kept in this tab's sessionStorage only, and removed from the address
 * bar as soon as it is read.
 */
const KEY = 'nodes-manager.token';

export interface Session {
  token: string;
  sub: string;
  scopes: string[];
  /** ms since the epoch, when the token says */
  expiresAt?: number;
}

/** claimsOf — the token's payload, read (not verified: the gateway verifies every request) to show who and what. */
export function sessionOf(token: string): Session | { error: string } {
  const parts = token.trim().split('.');
  if (parts.length !== 3) return { error: 'this is not a JWT (three dot-separated parts)' };
  try {
    const json = atob(parts[1]!.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(parts[1]!.length / 4) * 4, '='));
    const claims = JSON.parse(json) as Record<string, unknown>;
    const scopes = new Set<string>();
    if (typeof claims['scope'] === 'string') for (const s of claims['scope'].split(/\s+/)) if (s) scopes.add(s);
    for (const k of ['scopes', 'roles']) if (Array.isArray(claims[k])) for (const s of claims[k] as unknown[]) if (typeof s === 'string') scopes.add(s);
    return {
      token: token.trim(),
      sub: typeof claims['sub'] === 'string' ? claims['sub'] : '(no sub)',
      scopes: [...scopes],
      ...(typeof claims['exp'] === 'number' ? { expiresAt: claims['exp'] * 1000 } : {}),
    };
  } catch {
    return { error: 'the token’s payload is not readable JSON' };
  }
}

/** takeTokenFromFragment — `#token=…` (optionally `&view=…`): stores it and cleans the address bar. */
export function takeTokenFromFragment(): string | undefined {
  const hash = window.location.hash.replace(/^#/, '');
  if (!hash.includes('token=')) return undefined;
  const params = new URLSearchParams(hash);
  const token = params.get('token') ?? undefined;
  const view = params.get('view');
  history.replaceState(null, '', `${window.location.pathname}#/${view ?? 'fleet'}`);
  return token;
}

export const storedToken = (): string | undefined => sessionStorage.getItem(KEY) ?? undefined;
export const storeToken = (t: string): void => sessionStorage.setItem(KEY, t);
export const forgetToken = (): void => sessionStorage.removeItem(KEY);
