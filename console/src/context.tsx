import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { Api } from './api';
import type { Session } from './auth';
import type { StreamEvent } from './stream';

/** LiveBus — the stream's events and resets, handed to whichever views are mounted. */
export class LiveBus {
  private readonly events = new Set<(e: StreamEvent) => void>();
  private readonly resets = new Set<(reason: string) => void>();
  emit(e: StreamEvent): void {
    for (const f of [...this.events]) f(e);
  }
  reset(reason: string): void {
    for (const f of [...this.resets]) f(reason);
  }
  onEvent(f: (e: StreamEvent) => void): () => void {
    this.events.add(f);
    return () => this.events.delete(f);
  }
  onReset(f: (reason: string) => void): () => void {
    this.resets.add(f);
    return () => this.resets.delete(f);
  }
}

export interface Features {
  karpenter: boolean;
  approvals: boolean;
  rebalanceSummary: boolean;
  interruptionRates: boolean;
  /** The gateway serves steering's pools (GET /api/v1/steering/pools). */
  steering: boolean;
}

export interface AppContext {
  api: Api;
  session: Session;
  canWrite: boolean;
  live: LiveBus;
  features: Features;
  navigate: (hash: string) => void;
}

export const Ctx = createContext<AppContext | null>(null);
export const useApp = (): AppContext => {
  const c = useContext(Ctx);
  if (!c) throw new Error('useApp outside the app');
  return c;
};

/** useLive — calls `handler` for stream events whose type matches `accept`, and `onReset` when events were lost. */
export function useLive(accept: (type: string) => boolean, handler: (e: StreamEvent) => void, onReset?: () => void): void {
  const { live } = useApp();
  const h = useRef(handler);
  const r = useRef(onReset);
  const a = useRef(accept);
  h.current = handler;
  r.current = onReset;
  a.current = accept;
  useEffect(() => {
    const off1 = live.onEvent((e) => a.current(e.type) && h.current(e));
    const off2 = live.onReset(() => r.current?.());
    return () => {
      off1();
      off2();
    };
  }, [live]);
}

/** useNow — the current time, ticking every `everyMs` (for countdowns and "ago"). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** useDebounced — a function that runs `fn` once, `ms` after the last call. */
export function useDebounced(fn: () => void, ms: number): () => void {
  const f = useRef(fn);
  f.current = fn;
  const t = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(t.current), []);
  return useRef(() => {
    clearTimeout(t.current);
    t.current = setTimeout(() => f.current(), ms);
  }).current;
}

/** useResource — loads once (and on `reload()`), keeping the last good value while a reload runs. */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[] = []): { data?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ac = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(ac.signal).then(
      (data) => !ac.signal.aborted && setState({ data, loading: false }),
      (err: Error) => !ac.signal.aborted && setState((s) => ({ ...s, error: err.message, loading: false })),
    );
    return () => ac.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tick, ...deps]);
  const reload = useRef(() => setTick((t) => t + 1)).current;
  return { ...state, reload };
}
