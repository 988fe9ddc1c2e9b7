// The access log (--access-log on): a line per request, once its answer is made, with the
// method, the path (never the query string: it may hold anything), the status, the time
// taken, the client address (as --trusted-proxies resolves it) and the request id. Off,
// it costs nothing: nothing here is called.

import type { Logger } from '../logger.ts';
import type { ClientOf, PeerSource } from '../net/abuse-limits.ts';
import { requestId } from './request-id.ts';

/** What is known of a request when it arrives: when, and from whom. */
export interface Arrival {
  started: number;
  client: string;
}

/** A handler of Bun.serve's `routes`, as the redirect is served natively. */
type NativeHandler = (
  request: Bun.BunRequest,
  server: Bun.Server<unknown>,
) => Response | Promise<Response>;

export class AccessLog {
  constructor(
    private readonly log: Logger,
    private readonly clientOf: ClientOf,
  ) {}

  /**
   * When a request arrives: its id is made now, so that a fault logged while answering
   * it names the same id, and its client is read while its socket is sure to be there.
   */
  begin(request: Request, server: PeerSource | null): Arrival {
    requestId(request);
    return { started: performance.now(), client: this.clientOf(request, server) };
  }

  /** The line of an answered request. */
  write(request: Request, status: number, { started, client }: Arrival): void {
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    const id = requestId(request);
    const { method } = request;
    const path = pathOf(request.url);
    this.log.info(`${method} ${path} ${status} ${durationMs} ms from ${client} (request ${id})`, {
      request_id: id,
      method,
      path,
      status,
      duration_ms: durationMs,
      client,
    });
  }

  /** Bun's native routes (`{ path: { METHOD: handler } }`), each request logged. */
  around<R extends Record<string, Record<string, NativeHandler>>>(routes: R): R {
    const logged = (handler: NativeHandler): NativeHandler => {
      return (request, server) => {
        const arrival = this.begin(request, server);
        const answer = handler(request, server);
        if (answer instanceof Response) {
          this.write(request, answer.status, arrival);
          return answer;
        }
        return answer.then((response) => {
          this.write(request, response.status, arrival);
          return response;
        });
      };
    };
    return Object.fromEntries(
      Object.entries(routes).map(([path, methods]) => [
        path,
        Object.fromEntries(
          Object.entries(methods).map(([method, handler]) => [method, logged(handler)]),
        ),
      ]),
    ) as R;
  }
}

/** The path of a request URL, without its query string. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
