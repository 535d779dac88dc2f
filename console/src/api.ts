/**
 * The console's only way to the system: the public `/api/v1` of the gateway that served it, with the user's bearer
 * token. A 401 anywhere signs the user out with the gateway's reason; other failures carry the API's coded error.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

type Unauthorized = (reason: string) => void;

export class Api {
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: Unauthorized,
  ) {}

  async request<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    const res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      ...(init.signal ? { signal: init.signal } : {}),
      cache: 'no-store',
    });
    const body = (await res.json().catch(() => undefined)) as { code?: string; message?: string } | undefined;
    if (res.status === 401) {
      this.onUnauthorized(body?.message ?? 'the gateway refused the token');
      throw new ApiError(401, 'UNAUTHENTICATED', body?.message ?? 'unauthenticated');
    }
    if (!res.ok) throw new ApiError(res.status, body?.code ?? 'HTTP_' + res.status, body?.message ?? res.statusText);
    return body as T;
  }

  get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return this.request<T>(path, signal ? { signal } : {});
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>(path, { method: 'POST', body });
  }

  /** probe — whether a route exists here (200); a 404/501 means this gateway does not offer it (yet). */
  async probe<T>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (err) {
      if (err instanceof ApiError && err.status !== 401) return undefined;
      throw err;
    }
  }

  /**
   * pages — every page of a list, `limit` items a request, handing each page over as it arrives so the view paints
   * after the first one (a 5,000-node fleet is ten requests of 500).
   */
  async pages<T>(path: string, onPage: (items: T[], done: boolean) => void, opts: { limit?: number; signal?: AbortSignal; maxPages?: number } = {}): Promise<void> {
    let cursor: string | undefined;
    const sep = path.includes('?') ? '&' : '?';
    for (let i = 0; i < (opts.maxPages ?? 1000); i++) {
      const page = await this.get<Page<T>>(`${path}${sep}limit=${opts.limit ?? 500}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, opts.signal);
      cursor = page.nextCursor;
      onPage(page.items, !cursor);
      if (!cursor) return;
    }
  }
}
