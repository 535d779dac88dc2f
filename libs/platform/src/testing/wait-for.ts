/** waitFor — polls `probe` until it returns a truthy value or the timeout passes (then throws with `what`). */
export async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 15_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
