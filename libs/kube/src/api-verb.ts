/**
 * apiVerb — the Kubernetes verb of a request, as the API server's audit log and RBAC name it: a GET is `watch`,
 * `get` (a named object) or `list`; a DELETE of a collection is `deletecollection`. The one mapping: the client's
 * request counter (libs/platform) and the simulator's request log (libs/sim) both read it here.
 */
export function apiVerb(method: string, request: { readonly named: boolean; readonly watch: boolean }): string {
  switch (method.toUpperCase()) {
    case 'GET':
      return request.watch ? 'watch' : request.named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return request.named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}
