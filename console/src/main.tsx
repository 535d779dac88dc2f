import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { StrictMode, useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { Api, ApiError } from './api';
import { forgetToken, sessionOf, storedToken, storeToken, takeTokenFromFragment, type Session } from './auth';
import { Ctx, LiveBus, type AppContext, type Features } from './context';
import { EventStreamClient, type StreamStatus } from './stream';
import { FleetView } from './views/fleet';
import { CordonsView } from './views/cordons';
import { ActivityView } from './views/activity';
import { OptimizeView } from './views/optimize';
import { SpotView } from './views/spot';
import { WorkloadsView } from './views/workloads';
import { NodePoolsView } from './views/nodepools';
import { ApprovalsView } from './views/approvals';
import { PoolsView } from './views/pools';
import { PauseBanner } from './views/pause-banner';

/** The views, in the order of the navigation and of their keyboard shortcuts (1…9). */
const VIEWS = [
  { id: 'fleet', label: 'Fleet' },
  { id: 'cordons', label: 'Cordons' },
  { id: 'activity', label: 'Activity' },
  { id: 'optimize', label: 'Optimize' },
  { id: 'spot', label: 'Spot' },
  { id: 'workloads', label: 'Workloads' },
  { id: 'pools', label: 'Pools', needs: 'steering' as const },
  { id: 'nodepools', label: 'NodePools', needs: 'karpenter' as const },
  { id: 'approvals', label: 'Approvals', needs: 'approvals' as const },
];

const WRITE_SCOPE = 'nodes:write';

function route(): { view: string; arg?: string } {
  const [view, ...rest] = window.location.hash.replace(/^#\/?/, '').split('/');
  return { view: view || 'fleet', ...(rest.length ? { arg: decodeURIComponent(rest.join('/')) } : {}) };
}

function SignIn({ reason, onSignedIn }: { reason?: string; onSignedIn: (s: Session) => void }) {
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => input.current?.focus(), []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const s = sessionOf(value);
    if ('error' in s) return setProblem(s.error);
    setBusy(true);
    // One cheap authenticated call proves the token before anything is shown.
    const api = new Api(s.token, (r) => setProblem(`The gateway refused this token: ${r}`));
    try {
      await api.get('/api/v1/cordons?limit=1');
      onSignedIn(s);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) setProblem((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">nodes-manager</h1>
        <p>Sign in with a bearer token (a JWT from your identity provider; the demo prints one).</p>
        {reason && (
          <p className="notice error" role="alert" data-testid="signin-reason">
            Signed out: {reason}
          </p>
        )}
        <label htmlFor="token">Bearer token</label>
        <textarea id="token" ref={input} rows={4} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} autoComplete="off" />
        {problem && (
          <p className="notice error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy || !value.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p className="hint">The token stays in this tab only (session storage) and is sent to this gateway’s /api/v1 only.</p>
      </form>
    </main>
  );
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: (reason?: string) => void }) {
  const [where, setWhere] = useState(route);
  const [status, setStatus] = useState<{ s: StreamStatus; detail?: string }>({ s: 'connecting' });
  const [features, setFeatures] = useState<Features>({ karpenter: false, approvals: false, rebalanceSummary: false, interruptionRates: false, steering: false });
  const live = useMemo(() => new LiveBus(), []);
  const api = useMemo(() => new Api(session.token, (reason) => onSignOut(reason)), [session.token, onSignOut]);
  const navigate = useCallback((hash: string) => {
    window.location.hash = hash;
  }, []);

  useEffect(() => {
    const on = () => setWhere(route());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);

  // The live stream: one per signed-in tab; views subscribe through the LiveBus.
  useEffect(() => {
    const client = new EventStreamClient({
      url: '/api/v1/stream',
      token: () => session.token,
      onEvent: (e) => live.emit(e),
      onReset: (reason) => live.reset(reason),
      onStatus: (s, detail) => setStatus({ s, ...(detail ? { detail } : {}) }),
      onUnauthorized: (reason) => onSignOut(reason),
    });
    client.start();
    return () => client.stop();
  }, [session.token, live, onSignOut]);

  // Optional parts appear only where this gateway offers them.
  useEffect(() => {
    let gone = false;
    void (async () => {
      // Which optional routes this gateway serves, from its own OpenAPI document (public): no probing 404s.
      const [pools, doc] = await Promise.all([
        api.probe<{ karpenterInstalled?: boolean }>('/api/v1/nodepools'),
        fetch('/api/docs-json', { cache: 'no-store' }).then((r) => (r.ok ? (r.json() as Promise<{ paths?: Record<string, Record<string, unknown>> }>) : undefined), () => undefined),
      ]).catch(() => [undefined, undefined] as const);
      const serves = (path: string) => doc?.paths?.[path]?.['get'] !== undefined;
      if (!gone) setFeatures({ karpenter: pools?.karpenterInstalled === true, approvals: serves('/api/v1/approvals'), rebalanceSummary: serves('/api/v1/rebalances/summary'), interruptionRates: serves('/api/v1/rebalances/interruption-rates'), steering: serves('/api/v1/steering/pools') });
    })();
    return () => {
      gone = true;
    };
  }, [api]);

  const views = VIEWS.filter((v) => !v.needs || features[v.needs]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.altKey || e.ctrlKey || e.metaKey || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)) return;
      const i = Number(e.key);
      if (i >= 1 && i <= views.length) {
        navigate(`#/${views[i - 1]!.id}`);
        e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [views, navigate]);

  const ctx: AppContext = { api, session, canWrite: session.scopes.includes(WRITE_SCOPE), live, features, navigate };
  const current = views.find((v) => v.id === where.view) ?? views[0]!;
  useEffect(() => {
    document.title = `${current.label} · nodes-manager`;
  }, [current.label]);

  return (
    <Ctx.Provider value={ctx}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">nodes-manager</span>
        <nav aria-label="Views">
          {views.map((v, i) => (
            <a key={v.id} href={`#/${v.id}`} aria-current={v.id === current.id ? 'page' : undefined} title={`${v.label} (key ${i + 1})`}>
              {v.label}
            </a>
          ))}
        </nav>
        <span className={`live live-${status.s}`} role="status" data-testid="live-status" title={status.detail ?? ''}>
          {status.s === 'open' ? 'live' : status.s === 'retrying' ? 'reconnecting…' : status.s}
        </span>
        <span className="who" title={session.scopes.join(' ')}>
          {session.sub}
          {ctx.canWrite ? '' : ' (read-only)'}
        </span>
        <button type="button" className="link" onClick={() => onSignOut()}>
          Sign out
        </button>
      </header>
      <PauseBanner />
      <main id="main" tabIndex={-1}>
        {current.id === 'fleet' && <FleetView selected={where.arg} />}
        {current.id === 'cordons' && <CordonsView />}
        {current.id === 'activity' && <ActivityView />}
        {current.id === 'optimize' && <OptimizeView />}
        {current.id === 'spot' && <SpotView />}
        {current.id === 'workloads' && <WorkloadsView />}
        {current.id === 'pools' && <PoolsView />}
        {current.id === 'nodepools' && <NodePoolsView />}
        {current.id === 'approvals' && <ApprovalsView />}
      </main>
    </Ctx.Provider>
  );
}

function App() {
  const [session, setSession] = useState<Session | undefined>(() => {
    const fromFragment = takeTokenFromFragment();
    if (fromFragment) storeToken(fromFragment);
    const t = storedToken();
    const s = t ? sessionOf(t) : undefined;
    return s && !('error' in s) ? s : undefined;
  });
  const [reason, setReason] = useState<string | undefined>();
  const signOut = useCallback((why?: string) => {
    forgetToken();
    setReason(why);
    setSession(undefined);
  }, []);
  if (!session)
    return (
      <SignIn
        {...(reason ? { reason } : {})}
        onSignedIn={(s) => {
          storeToken(s.token);
          setReason(undefined);
          setSession(s);
        }}
      />
    );
  return <Shell session={session} onSignOut={signOut} />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
