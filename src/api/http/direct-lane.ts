import type { ErrorRequestHandler, RequestHandler } from 'express';

/** A route the lane answers: a GET whose path is exactly its pattern, and its handlers after the lane's checks. */
export interface LaneRoute {
  /** As Express names it: literal segments and `:name` parameters (`/api/v1/tenders/:id`). */
  path: string;
  handlers: readonly RequestHandler[];
}

type PathMatch = (path: string) => Record<string, string> | undefined;

/**
 * The partners' polls without Express's router (issue 43): a GET of one of `routes`, at its canonical path, runs
 * `checks` and then the route's handlers in a flat list, the same functions the router runs for it, so the request
 * costs no walk past every other router's layers. Anything else (another method, a trailing slash, other letter
 * case, a parameter that does not decode) goes on to the router, which answers it as before. Errors, thrown or
 * rejected, go to `onError`, as the router would hand them to the last error handler.
 */
export function directLane(checks: readonly RequestHandler[], routes: readonly LaneRoute[], onError: ErrorRequestHandler): RequestHandler {
  const matchers = routes.map((route) => ({ path: route.path, match: pathMatch(route.path), chain: [...checks, ...route.handlers] }));
  return (req, res, next) => {
    if (req.method !== 'GET') return next();
    const path = req.path;
    for (const { path: pattern, match, chain } of matchers) {
      const params = match(path);
      if (!params) continue;
      req.params = params;
      // What the router leaves of a matched route, and all the metrics read of it: its pattern.
      (req as { route?: unknown }).route = { path: pattern };
      let at = 0;
      const step = (error?: unknown): void => {
        if (error !== undefined && error !== null) {
          onError(error, req, res, () => undefined);
          return;
        }
        const handler = chain[at++];
        // Every route answers; one that passes the request on anyway has nothing after it in this lane.
        if (!handler) {
          onError(new Error(`${path} was passed on past its route`), req, res, () => undefined);
          return;
        }
        try {
          const result: unknown = handler(req, res, step);
          if (result instanceof Promise) result.catch((rejection: unknown) => step(rejection ?? new Error('rejected')));
        } catch (thrown) {
          step(thrown);
        }
      };
      return step();
    }
    next();
  };
}

/** Matches a path exactly as Express's router does a route's canonical form; its parameters decoded. */
function pathMatch(pattern: string): PathMatch {
  const segments = pattern.split('/');
  if (!segments.some((segment) => segment.startsWith(':'))) return (path) => (path === pattern ? {} : undefined);
  return (path) => {
    const parts = path.split('/');
    if (parts.length !== segments.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i];
      if (!segment.startsWith(':')) {
        if (parts[i] !== segment) return undefined;
        continue;
      }
      if (parts[i] === '') return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(parts[i]);
      } catch {
        return undefined;
      }
    }
    return params;
  };
}
