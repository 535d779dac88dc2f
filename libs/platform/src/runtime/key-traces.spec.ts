import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { inSpan, setTracing, withContext, ROOT_CONTEXT } from '../tracing/tracing.js';
import { KeyTraces, MAX_TRACED_RECONCILES } from './key-traces.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  provider.register();
  setTracing(true);
});
afterAll(async () => {
  setTracing(false);
  await provider.shutdown();
});

const reconcileSpans = () => exporter.getFinishedSpans().filter((s) => s.name === 'reconcile drain');
const inRequest = <T>(name: string, fn: () => Promise<T>) => inSpan(name, {}, fn);

describe('KeyTraces: a trace across the work queue', () => {
  it('a key enqueued inside a request reconciles under it, requeues included, until a reconcile finishes it', async () => {
    exporter.reset();
    const traces = new KeyTraces();
    let request!: { traceId: string; spanId: string };
    await inRequest('POST drain', async () => {
      request = trace.getActiveSpan()!.spanContext();
      traces.add('op-1');
    });
    await withContext(ROOT_CONTEXT, () => traces.run('op-1', 'drain', { retries: 0 }, async () => undefined));
    await withContext(ROOT_CONTEXT, () => traces.run('op-1', 'drain', { retries: 0 }, async () => undefined)); // a requeue
    traces.finished('op-1');
    await traces.run('op-1', 'drain', { retries: 0 }, async () => undefined); // enqueued later by untraced work
    const spans = reconcileSpans();
    expect(spans.map((s) => [s.spanContext().traceId, s.parentSpanContext?.spanId, s.attributes['nodes_manager.reconcile']])).toEqual([
      [request.traceId, request.spanId, 1],
      [request.traceId, request.spanId, 2],
    ]);
  });

  it('another trace asking for the same key meanwhile is a link on the next reconcile, not a second parent', async () => {
    exporter.reset();
    const traces = new KeyTraces();
    await inRequest('first', async () => traces.add('op-2'));
    let second = '';
    await inRequest('second', async () => {
      second = trace.getActiveSpan()!.spanContext().traceId;
      traces.add('op-2');
    });
    await traces.run('op-2', 'drain', { retries: 0 }, async () => undefined);
    const [span] = reconcileSpans();
    expect(span!.links.map((l) => l.context.traceId)).toEqual([second]);
    expect(span!.spanContext().traceId).not.toBe(second);
  });

  it('a key enqueued by untraced work makes no span; a key requeued forever stops continuing its trace', async () => {
    exporter.reset();
    const traces = new KeyTraces();
    traces.add('node-a');
    await traces.run('node-a', 'drain', { retries: 0 }, async () => undefined);
    expect(reconcileSpans()).toEqual([]);
    await inRequest('request', async () => traces.add('op-3'));
    for (let i = 0; i < MAX_TRACED_RECONCILES + 5; i++) await traces.run('op-3', 'drain', { retries: 0 }, async () => undefined);
    expect(reconcileSpans()).toHaveLength(MAX_TRACED_RECONCILES);
  });
});
