import { useRef, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { clock, dateTime, pct } from '../format';
import type { Node } from '../types';

const ROW_PX = 34;

/** usage — the share of a node's allocatable CPU that its pods request; undefined when either is unknown. */
export const usage = (n: Node) => (n.allocatable && n.requested && n.allocatable.cpuMilli > 0 ? n.requested.cpuMilli / n.allocatable.cpuMilli : undefined);
/** memUsage — the same share for memory. */
export const memUsage = (n: Node) => (n.allocatable && n.requested && n.allocatable.memoryBytes > 0 ? n.requested.memoryBytes / n.allocatable.memoryBytes : undefined);

/** NodeTable — the nodes in a virtualised table: only the visible rows are in the DOM, so 5,000 nodes scroll like 50. */
export function NodeTable({
  nodes,
  selected,
  onOpen,
  stale,
  seenAt,
}: {
  nodes: Node[];
  selected: string | undefined;
  onOpen: (name: string) => void;
  stale: ReadonlySet<string>;
  seenAt: ReadonlyMap<string, string>;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: nodes.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 12 });
  const onKey = (e: KeyboardEvent<HTMLDivElement>, i: number) => {
    const move = (to: number) => {
      e.preventDefault();
      const j = Math.max(0, Math.min(nodes.length - 1, to));
      v.scrollToIndex(j);
      requestAnimationFrame(() => scroller.current?.querySelector<HTMLElement>(`[data-index="${j}"]`)?.focus());
    };
    if (e.key === 'Enter' || e.key === ' ') (e.preventDefault(), onOpen(nodes[i]!.name));
    else if (e.key === 'ArrowDown') move(i + 1);
    else if (e.key === 'ArrowUp') move(i - 1);
    else if (e.key === 'PageDown') move(i + 15);
    else if (e.key === 'PageUp') move(i - 15);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(nodes.length - 1);
  };
  return (
    <div className="vtable" role="table" aria-label="Nodes" aria-rowcount={nodes.length + 1}>
      <div className="vrow vhead" role="row">
        {['Node', 'State', 'Zone', 'Instance type', 'Capacity', 'NodePool', 'Pods', 'CPU req.', 'Mem req.'].map((h) => (
          <span role="columnheader" key={h}>
            {h}
          </span>
        ))}
      </div>
      <div className="vbody" ref={scroller} data-testid="fleet-scroller">
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((item) => {
            const n = nodes[item.index]!;
            return (
              <div
                key={n.name}
                role="row"
                tabIndex={0}
                data-index={item.index}
                data-testid="fleet-row"
                data-node={n.name}
                data-stale={stale.has(n.name) || undefined}
                aria-rowindex={item.index + 2}
                aria-selected={n.name === selected}
                className={`vrow ${n.name === selected ? 'selected' : ''} ${stale.has(n.name) ? 'stale' : ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_PX, transform: `translateY(${item.start}px)` }}
                onClick={() => onOpen(n.name)}
                onKeyDown={(e) => onKey(e, item.index)}
              >
                <span role="cell" className="mono">
                  {n.name}
                  {stale.has(n.name) && <StaleMark at={seenAt.get(n.name)} />}
                </span>
                <span role="cell">
                  <span className={`badge state-${n.state}`}>{n.state}</span>
                </span>
                <span role="cell">{n.zone ?? '—'}</span>
                <span role="cell">{n.instanceType ?? '—'}</span>
                <span role="cell">{n.capacityType ?? '—'}</span>
                <span role="cell">{n.nodePool ?? '—'}</span>
                <span role="cell" className="num">
                  {n.podCount}
                </span>
                <span role="cell" className="num">
                  {pct(usage(n))}
                </span>
                <span role="cell" className="num">
                  {pct(memUsage(n))}
                </span>
              </div>
            );
          })}
        </div>
        {nodes.length === 0 && <p className="muted pad">No node matches.</p>}
      </div>
    </div>
  );
}

/** StaleMark — a node whose latest re-read failed: what is shown is as of `at`, in the viewer's time zone. */
function StaleMark({ at }: { at: string | undefined }) {
  return (
    <span className="badge stale" data-testid="stale" title={at ? `Could not be refreshed; last seen ${dateTime(at)}` : 'Could not be refreshed'}>
      stale{at ? ' · last seen ' : ''}
      {at && <time dateTime={at}>{clock(at)}</time>}
    </span>
  );
}
