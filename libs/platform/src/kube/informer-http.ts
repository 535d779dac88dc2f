import { StringDecoder } from 'node:string_decoder';
import type * as k8s from '@kubernetes/client-node';
import fetch from 'node-fetch';

/**
 * The informer's HTTP: requests go through the client's own configuration (`KubeConfig.applyToFetchOptions`: its
 * TLS agent, credentials and headers), as the client's stock `Watch` does. @kubernetes/client-node 1.4 has no
 * WatchList and no bound on a LIST page or a watch's opening, so the informer speaks HTTP itself (docs/stack.md).
 */

/** apiRequest — the URL of `path` with `params` (undefined ones left out) and the client's fetch options. */
export async function apiRequest(kc: k8s.KubeConfig, path: string, params: Record<string, string | undefined>): Promise<{ url: URL; init: object }> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const url = new URL(cluster.server + path);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const init = await kc.applyToFetchOptions({});
  return { url, init: init as object };
}

/** FetchResponse — what the informer reads of a response. */
export interface FetchResponse {
  status: number;
  text(): Promise<string>;
  body: NodeJS.ReadableStream;
}

/** get — one GET, abortable by `signal`. */
export async function get(url: URL, init: object, signal: AbortSignal): Promise<FetchResponse> {
  return (await fetch(url, { ...init, method: 'GET', signal: signal as any } as any)) as unknown as FetchResponse;
}

/**
 * readLines — calls `line` for each newline-delimited line of a watch body (UTF-8 decoded across chunk boundaries)
 * and `bytes` for each chunk's size; resolves how the stream ended. `line` returns true to stop reading.
 */
export function readLines(
  body: NodeJS.ReadableStream,
  handlers: { line(text: string): boolean; bytes(n: number): void },
): Promise<{ end: 'end' } | { end: 'stopped' } | { end: 'error'; err: Error }> {
  return new Promise((resolve) => {
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let settled = false;
    const settle = (how: { end: 'end' } | { end: 'stopped' } | { end: 'error'; err: Error }) => {
      if (settled) return;
      settled = true;
      resolve(how);
    };
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      handlers.bytes(chunk.length);
      const text = carry + decoder.write(chunk);
      let start = 0;
      let nl: number;
      while ((nl = text.indexOf('\n', start)) >= 0) {
        const one = text.slice(start, nl);
        start = nl + 1;
        if (one.trim() !== '' && handlers.line(one)) {
          settle({ end: 'stopped' });
          return;
        }
      }
      carry = start === 0 ? text : text.slice(start);
    });
    body.on('end', () => {
      if (settled) return;
      const rest = carry + decoder.end();
      if (rest.trim() !== '' && handlers.line(rest)) return settle({ end: 'stopped' });
      settle({ end: 'end' });
    });
    body.on('error', (err: Error) => settle({ end: 'error', err }));
  });
}
