import { describe, expect, it } from '@jest/globals';
import { CycleRunner } from './cycle-runner.js';

/** Cycles the test ends by hand, recording the argument each one ran with. */
function aRunner() {
  const runs: { arg: string; end: (v?: string) => void; fail: (e: Error) => void }[] = [];
  const runner = new CycleRunner<string, string>(
    (arg) => new Promise<string>((resolve, reject) => runs.push({ arg, end: (v) => resolve(v ?? `done ${arg}`), fail: reject })),
  );
  const tick = () => new Promise((r) => setImmediate(r));
  return { runner, runs, tick };
}

describe('CycleRunner', () => {
  it('runs a request at once when idle', async () => {
    const { runner, runs, tick } = aRunner();
    const r = runner.request('tick');
    await tick();
    expect(runs.map((x) => x.arg)).toEqual(['tick']);
    runs[0]!.end();
    expect(await r).toBe('done tick');
    expect(runner.busy).toBe(false);
  });

  it('never overlaps cycles: requests during a cycle make exactly one more cycle, with the first one\'s argument', async () => {
    const { runner, runs, tick } = aRunner();
    const first = runner.request('tick');
    const second = runner.request('watch');
    const third = runner.request('leader');
    await tick();
    expect(runs.map((x) => x.arg)).toEqual(['tick']);
    runs[0]!.end();
    await tick();
    expect(runs.map((x) => x.arg)).toEqual(['tick', 'watch']);
    runs[1]!.end('after');
    // Every caller waits for the cycle that started after its request.
    expect(await Promise.all([first, second, third])).toEqual(['after', 'after', 'after']);
    expect(runs).toHaveLength(2);
  });

  it('starts afresh once a run is over', async () => {
    const { runner, runs, tick } = aRunner();
    const a = runner.request('a');
    await tick();
    runs[0]!.end();
    await a;
    const b = runner.request('b');
    await tick();
    expect(runs.map((x) => x.arg)).toEqual(['a', 'b']);
    runs[1]!.end();
    await b;
  });

  it('rejects the callers of a run whose cycle throws, and runs the next request', async () => {
    const { runner, runs, tick } = aRunner();
    const a = runner.request('a');
    const b = runner.request('b');
    await tick();
    runs[0]!.fail(new Error('database down'));
    await expect(a).rejects.toThrow('database down');
    await expect(b).rejects.toThrow('database down');
    const c = runner.request('c');
    await tick();
    expect(runs.map((x) => x.arg)).toEqual(['a', 'c']);
    runs[1]!.end();
    await expect(c).resolves.toBe('done c');
  });

  it('is idle only when no cycle runs', async () => {
    const { runner, runs, tick } = aRunner();
    void runner.request('a').catch(() => undefined);
    let idle = false;
    const waiting = runner.idle().then(() => (idle = true));
    await tick();
    expect(idle).toBe(false);
    runs[0]!.fail(new Error('x'));
    await waiting;
    expect(idle).toBe(true);
  });
});
