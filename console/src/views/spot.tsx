import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { useApp, useDebounced, useLive, useResource } from '../context';
import { BASIS_WORDS, count, dateTime, duration, minutes, pct, round, usd } from '../format';
import type { Market, MarketItem } from '../types';

const ZONE_COLOURS = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2'];

/** SpotView — Spot prices per instance type and zone over the advisor's window, the interruption estimate and its basis. */
export function SpotView() {
  const { api, features } = useApp();
  const market = useResource((signal) => api.get<Market>('/api/v1/spot/market', signal), [api]);
  const reload = useDebounced(market.reload, 1000);
  useLive((t) => t === 'spot.prices.refreshed', reload, market.reload);
  const types = useMemo(() => [...new Set((market.data?.items ?? []).map((i) => i.instanceType))].sort(), [market.data]);
  const [type, setType] = useState('');
  const chosen = type || types[0] || '';
  const rows = (market.data?.items ?? []).filter((i) => i.instanceType === chosen).sort((a, b) => a.availabilityZone.localeCompare(b.availabilityZone));
  const history = useResource((signal) => (chosen ? api.get<History>(`/api/v1/spot/history?instanceType=${encodeURIComponent(chosen)}`, signal) : Promise.resolve(undefined)), [api, chosen, market.data]);

  return (
    <section className="view" aria-labelledby="spot-title">
      <div className="view-head">
        <h1 id="spot-title">Spot market</h1>
        {market.data && (
          <span className="muted">
            {market.data.region} · window {market.data.window.hours} h · fetched {dateTime(market.data.fetchedAt)}
            {market.data.stale ? ' · STALE' : ''}
          </span>
        )}
        <label className="select">
          <span>Instance type</span>
          <select value={chosen} onChange={(e) => setType(e.target.value)}>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {market.error && <p className="notice error">{market.error}</p>}
      {features.rebalanceSummary && <RebalanceLedger />}
      {features.interruptionRates && <InterruptionRates />}
      {market.data && rows.length > 0 && <PriceChart market={market.data} rows={rows} history={history.data?.instanceType === chosen ? history.data : undefined} />}
      {market.data && (
        <table>
          <thead>
            <tr>
              <th scope="col">Zone</th>
              <th scope="col" className="num">
                Spot now
              </th>
              <th scope="col" className="num">
                On-demand
              </th>
              <th scope="col" className="num">
                Saving
              </th>
              <th scope="col">Over the window</th>
              <th scope="col">Interruption estimate</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.availabilityZone}>
                <td className="nowrap">{r.availabilityZone}</td>
                <td className="num">{usd(r.spotUsdPerHour, 4)}/h</td>
                <td className="num">{r.onDemandKnown === false ? 'unknown' : `${usd(r.onDemandUsdPerHour, 4)}/h`}</td>
                <td className="num">{r.savingsPct === undefined ? '—' : `${r.savingsPct}%`}</td>
                <td>
                  {r.trend ? `${r.trend.direction} (${r.trend.changePct > 0 ? '+' : ''}${r.trend.changePct}% from ${usd(r.trend.fromUsdPerHour, 4)})` : '—'}
                  {r.interruption?.volatility && (
                    <div className="muted small-text">
                      range {usd(r.interruption.volatility.minUsdPerHour, 4)}–{usd(r.interruption.volatility.maxUsdPerHour, 4)}, {r.interruption.volatility.changes} changes
                    </div>
                  )}
                </td>
                <td>
                  <strong>{r.interruption?.bucket ?? 'unknown'}</strong> <span className="badge">{r.interruption ? (BASIS_WORDS[r.interruption.basis] ?? r.interruption.basis.replace(/[-_+]/g, ' ')) : '—'}</span>
                  <div className="muted small-text">{r.interruption?.explanation}</div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** History — `GET /api/v1/spot/history`: every price change per zone over the window. */
interface History {
  instanceType: string;
  window: { from: string; to: string };
  zones: { zone: string; points: { at: string; usdPerHour: number }[] }[];
}

/**
 * PriceChart — one stepped line per zone of the chosen type: every Spot price change over the advisor's window
 * (`/spot/history`), against the On-Demand price. While the history has not arrived, the market view's summary
 * draws it: the price at the window's start, then the current one since it took effect.
 */
function PriceChart({ market, rows, history }: { market: Market; rows: MarketItem[]; history: History | undefined }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const from = Date.parse(market.window.from) / 1000;
    const to = Date.parse(market.window.to) / 1000;
    // Each zone as (time, price) steps; the chart's x axis is the union of every zone's change times.
    const steps = rows.map((r): [number, number][] => {
      const pts = history?.zones.find((z) => z.zone === r.availabilityZone)?.points;
      if (pts && pts.length > 0) return pts.map((p) => [Math.max(from, Date.parse(p.at) / 1000), p.usdPerHour]);
      const since = r.spotPriceSince ? Math.max(from, Date.parse(r.spotPriceSince) / 1000) : from;
      return [
        [from, r.trend?.fromUsdPerHour ?? r.spotUsdPerHour],
        [since, r.spotUsdPerHour],
      ];
    });
    const x = [...new Set([from, to, ...steps.flatMap((s) => s.map(([t]) => t))])].sort((a, b) => a - b);
    const series = steps.map((s) => {
      let i = 0;
      let price = s[0]?.[1] ?? null;
      return x.map((t) => {
        while (i < s.length && s[i]![0] <= t) price = s[i++]![1];
        return price;
      });
    });
    const od = rows.find((r) => r.onDemandKnown !== false)?.onDemandUsdPerHour;
    const data: uPlot.AlignedData = [x, ...series, ...(od !== undefined ? [x.map(() => od)] : [])];
    const width = Math.max(400, el.current.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 260,
        scales: { x: { time: true } },
        axes: [{}, { label: 'USD / hour', size: 70, values: (_u, v) => v.map((n) => `$${n.toFixed(3)}`) }],
        series: [
          {},
          ...rows.map((r, i) => ({ label: r.availabilityZone, stroke: ZONE_COLOURS[i % ZONE_COLOURS.length]!, width: 2, points: { show: false }, paths: uPlot.paths.stepped!({ align: 1 }) })),
          ...(od !== undefined ? [{ label: 'On-demand', stroke: '#6b7280', dash: [6, 4], width: 1.5, points: { show: false } }] : []),
        ],
        legend: { show: true },
      },
      data,
      el.current,
    );
    const onResize = () => el.current && plot.setSize({ width: Math.max(400, el.current.clientWidth), height: 260 });
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      plot.destroy();
    };
  }, [market, rows, history]);
  return (
    <figure className="chart">
      <div ref={el} data-testid="price-chart" role="img" aria-label={`Spot price of ${rows[0]?.instanceType} per zone over the last ${market.window.hours} hours`} />
      <figcaption className="muted small-text">
        {history ? `Spot price per zone, every change over the last ${market.window.hours} h` : 'Spot price per zone: the price at the window’s start and the current one (history loading)'}; dashed: On-Demand.
      </figcaption>
    </figure>
  );
}

/** RebalanceSummary — `GET /api/v1/rebalances/summary` (the figures the view shows; docs/rebalance-ledger.md). */
interface RebalanceSummary {
  horizonHours: number;
  from: string | null;
  to: string;
  cluster: {
    rebalances: number;
    open: number;
    samples: number;
    interrupted: number;
    interruptedShare: number | null;
    interval95: [number, number] | null;
    leadTimeMinutes: { samples: number; median: number; p90: number } | null;
    nodeHoursGivenBack: number;
  };
}

/** RebalanceLedger — the rebalance outcomes ledger's summary, shown only when this gateway offers it: every figure rounded, with its unit. */
function RebalanceLedger() {
  const { api } = useApp();
  const summary = useResource((signal) => api.get<RebalanceSummary>('/api/v1/rebalances/summary', signal), [api]);
  const s = summary.data;
  const c = s?.cluster;
  const cards: [string, string, string?][] = s && c
    ? [
        ['Rebalance recommendations', count(c.rebalances), c.open > 0 ? `${count(c.open)} still within the follow-up horizon` : undefined],
        [
          'Followed by an interruption',
          c.interruptedShare === null ? '—' : pct(c.interruptedShare, 1),
          c.interval95 ? `${count(c.interrupted)} of ${count(c.samples)} known · 95% interval ${pct(c.interval95[0], 1)}–${pct(c.interval95[1], 1)}` : 'no follow-up known yet',
        ],
        ['Lead time to the interruption', c.leadTimeMinutes ? `${minutes(c.leadTimeMinutes.median)} median` : '—', c.leadTimeMinutes ? `90th percentile ${minutes(c.leadTimeMinutes.p90)}` : undefined],
        ['Node-hours given back', `${round(c.nodeHoursGivenBack, c.nodeHoursGivenBack >= 10 ? 0 : 1)} h`, 'by uncordoning rebalance cordons'],
        ['Follow-up horizon', Number.isInteger(s.horizonHours) ? `${s.horizonHours} h` : duration(s.horizonHours * 3_600_000), 'a rebalance is counted as survived after this'],
      ]
    : [];
  return (
    <div className="ledger" data-testid="rebalance-ledger">
      <h2>Rebalance recommendations: what happened after</h2>
      {s && <p className="muted small-text">{s.from ? `From ${dateTime(s.from)} to ${dateTime(s.to)}` : `Every rebalance recorded, as of ${dateTime(s.to)}`}</p>}
      {summary.error && <p className="notice error">{summary.error}</p>}
      <div className="cards">
        {cards.map(([label, value, note]) => (
          <div className="card" key={label}>
            <div className="card-label">{label}</div>
            <div className="card-value">{value}</div>
            {note && <div className="muted small-text">{note}</div>}
          </div>
        ))}
      </div>
    </div>
  );
}

/** InterruptionRatesReply — `GET /api/v1/rebalances/interruption-rates` (docs/rebalance-ledger.md#interruptions-per-1000-node-hours). */
interface RateFigures {
  instanceType?: string | null;
  zone?: string | null;
  interruptions: number;
  withoutRecommendation: number;
  nodeHours: number;
  nodes: number;
  per1000NodeHours: number | null;
  interval95: [number, number] | null;
}
interface InterruptionRatesReply {
  from: string;
  to: string;
  nodeHours: { available: boolean; detail?: string };
  cluster: RateFigures;
  byPool: RateFigures[];
}

/** rateWords — a rate in words with its units: "2.4 interruptions per 1,000 node-hours (95% interval 0.5–7.0), from 3 in 1,250 node-hours". */
export function rateWords(r: RateFigures): string {
  const hours = `${round(r.nodeHours, r.nodeHours >= 10 ? 0 : 1)} node-hours`;
  const n = `${count(r.interruptions)} interruption${r.interruptions === 1 ? '' : 's'}`;
  if (r.per1000NodeHours === null || !r.interval95) return `${n}; no node-hours known`;
  const digits = (v: number) => (v >= 10 ? 0 : 1);
  const without = r.interruptions > 0 ? `; ${r.withoutRecommendation === r.interruptions ? 'none' : count(r.interruptions - r.withoutRecommendation)} after a rebalance recommendation` : '';
  return `${round(r.per1000NodeHours, digits(r.per1000NodeHours))} per 1,000 node-hours (95% interval ${round(r.interval95[0], digits(r.interval95[0]))}–${round(r.interval95[1], digits(r.interval95[1]))}), from ${n} in ${hours}${without}`;
}

/** InterruptionRates — every Spot interruption, recommendation or not, per 1,000 node-hours of each pool, in words. */
function InterruptionRates() {
  const { api } = useApp();
  const rates = useResource((signal) => api.get<InterruptionRatesReply>('/api/v1/rebalances/interruption-rates', signal), [api]);
  const r = rates.data;
  const pools = (r?.byPool ?? []).filter((p) => p.interruptions > 0 || p.nodeHours > 0);
  return (
    <div className="ledger" data-testid="interruption-rates">
      <h2>Spot interruptions per 1,000 node-hours</h2>
      {r && (
        <p className="muted small-text">
          Every interruption counts, with or without a rebalance recommendation before it. From {dateTime(r.from)} to {dateTime(r.to)}.
          {!r.nodeHours.available && ` Node-hours unknown: ${r.nodeHours.detail ?? 'node-sync did not answer'}.`}
        </p>
      )}
      {rates.error && <p className="notice error">{rates.error}</p>}
      {r && <p>All Spot nodes: {rateWords(r.cluster)}.</p>}
      {pools.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th>Pool</th>
              <th>Interruptions per 1,000 node-hours</th>
              <th>Nodes</th>
            </tr>
          </thead>
          <tbody>
            {pools.map((p) => (
              <tr key={`${p.instanceType}/${p.zone}`}>
                <td>
                  {p.instanceType ?? 'unknown type'} in {p.zone ?? 'unknown zone'}
                </td>
                <td>{rateWords(p)}</td>
                <td>{count(p.nodes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {r && pools.length === 0 && <p className="muted">No Spot node-hours or interruptions in the window.</p>}
    </div>
  );
}
