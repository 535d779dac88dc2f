export interface ApiReply {
  status: number;
  body: any;
}

/** apiCaller — calls the REST API as a client would: bearer token, JSON body, parsed JSON reply (or undefined). */
export function apiCaller(baseUrl: string, defaultToken: string) {
  return async (method: string, path: string, body?: unknown, token = defaultToken): Promise<ApiReply> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}
