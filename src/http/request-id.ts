// The id a request is logged under (its access-log line, a fault and the 500's
// X-Request-Id), made the first time something logs the request: a request nothing logs
// pays nothing. Ids are made here only; one sent by the client is not believed, as it
// could make a line of the log pass for another's.

const ids = new WeakMap<Request, string>();

export function requestId(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    id = crypto.randomUUID();
    ids.set(request, id);
  }
  return id;
}
