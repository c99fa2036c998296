import type { MikroORM } from '@mikro-orm/core';
import type { Request } from 'express';
import type { TokenService } from '../auth/token.service';
import type { RequestContext } from '../graphql/context';
import { createLoaders } from '../graphql/loaders';
import type { UrlAllowList } from './url-allow-list';

export interface ContextDeps {
  orm: MikroORM;
  tokens: TokenService;
  wakeDispatcher: () => void;
  insurerUrls: UrlAllowList;
}

/** One EntityManager fork and one authenticated viewer per request, for every transport. */
export async function requestContext(deps: ContextDeps, req: Request): Promise<RequestContext> {
  const em = deps.orm.em.fork();
  const viewer = await deps.tokens.authenticate(em, req.headers.authorization);
  return { em, viewer, wakeDispatcher: deps.wakeDispatcher, insurerUrls: deps.insurerUrls, loaders: createLoaders(em, viewer) };
}
