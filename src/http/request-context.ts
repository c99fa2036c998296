import type { MikroORM } from '@mikro-orm/core';
import type { Request } from 'express';
import type { TokenService } from '../auth/token.service';
import type { Viewer } from '../auth/viewer';
import type { RequestContext } from '../graphql/context';
import { createLoaders } from '../graphql/loaders';
import { RowBudget } from '../graphql/row-budget';
import type { UrlAllowList } from './url-allow-list';

export interface ContextDeps {
  orm: MikroORM;
  tokens: TokenService;
  wakeDispatcher: () => void;
  /** Rows one operation may read (GRAPHQL_MAX_ROWS). */
  maxRowsPerOperation: number;
  insurerUrls: UrlAllowList;
}

const viewers = new WeakMap<Request, Promise<Viewer>>();

/**
 * The viewer of the request's bearer token, checked once per request (signature, lifetime, revocation, client
 * standing) however many layers ask: the rate limit keys on it before the route builds its context.
 */
export function authenticatedViewer(deps: ContextDeps, req: Request): Promise<Viewer> {
  let viewer = viewers.get(req);
  if (!viewer) {
    viewer = deps.tokens.authenticate(deps.orm.em.fork(), req.headers.authorization);
    viewer.catch(() => undefined); // whoever asks sees the rejection; an unasked one is no unhandled rejection
    viewers.set(req, viewer);
  }
  return viewer;
}

/** One EntityManager fork and one authenticated viewer per request, for every transport. */
export async function requestContext(deps: ContextDeps, req: Request): Promise<RequestContext> {
  const viewer = await authenticatedViewer(deps, req);
  const em = deps.orm.em.fork();
  const rows = new RowBudget(deps.maxRowsPerOperation);
  return { em, viewer, wakeDispatcher: deps.wakeDispatcher, insurerUrls: deps.insurerUrls, rows, loaders: createLoaders(em, viewer, rows) };
}
