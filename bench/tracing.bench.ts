/**
 * Tracing cost benchmark: the controller runtime — the path every command's work and every loop goes through, with
 * the most tracing hooks (enqueue, pump, reconcile) — reconciling keys with tracing **off** (baseline, the default),
 * then, in the same process, with the SDK **on** (exporting to a local OTLP/HTTP sink): keys from untraced work (what
 * background loops are: no span), and keys enqueued inside a request's span (a span per reconcile, exported). Each
 * figure is the best of three rounds. Prints JSON.
 *
 *   npm run build && node dist/bench/tracing.bench.js [--keys 100000]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, inSpan, startTracing, SystemClock, tracingSettings, flushTracing } from '@nodes-manager/platform';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const KEYS = arg('keys', 100_000);
const BATCH = 1_000;

/** reconcileAll — keys/s through one controller: KEYS keys enqueued in batches (inside a span when `traced`), all reconciled. */
async function reconcileAll(traced: boolean): Promise<number> {
  let done = 0;
  const c = new Controller({ name: 'bench', service: 'bench', clock: new SystemClock(), concurrency: 16, reconcile: async () => void done++ });
  c.start();
  const started = performance.now();
  for (let b = 0; b < KEYS; b += BATCH) {
    const enqueue = async () => {
      for (let i = b; i < b + BATCH; i++) c.enqueue(`key-${i}`);
    };
    if (traced) await inSpan('request', {}, enqueue);
    else await enqueue();
    await c.settled();
  }
  const seconds = (performance.now() - started) / 1000;
  await c.stop();
  if (done !== KEYS) throw new Error(`reconciled ${done} of ${KEYS}`);
  return KEYS / seconds;
}

const best = async (traced: boolean) => Math.max(await reconcileAll(traced), await reconcileAll(traced), await reconcileAll(traced));

const off = await best(false);
const sink = http.createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
await startTracing('bench', tracingSettings('bench', { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }));
const onUntraced = await best(false);
const onTraced = await best(true);
await flushTracing();
sink.close();
const round = (n: number) => Math.round(n);
process.stdout.write(
  JSON.stringify(
    {
      keys: KEYS,
      offKeysPerSecond: round(off),
      onUntracedKeysPerSecond: round(onUntraced),
      onUntracedVsOff: +(onUntraced / off).toFixed(2),
      onTracedKeysPerSecond: round(onTraced),
      onTracedVsOff: +(onTraced / off).toFixed(2),
    },
    null,
    2,
  ) + '\n',
);
process.exit(0);
