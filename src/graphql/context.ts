import type { EntityManager } from '@mikro-orm/core';
import type { Viewer } from '../auth/viewer';
import type { UrlAllowList } from '../http/url-allow-list';
import type { Loaders } from './loaders';
import type { RowBudget } from './row-budget';

/** Built once per request, for GraphQL and the REST shim alike. */
export interface RequestContext {
  /** This request's own EntityManager fork. */
  em: EntityManager;
  viewer: Viewer;
  /** Tells the quote dispatcher that new work was committed. */
  wakeDispatcher: () => void;
  /** Which insurer URLs may be registered (INSURER_URL_ALLOW). */
  insurerUrls: UrlAllowList;
  loaders: Loaders;
  /** The rows this operation may still read. */
  rows: RowBudget;
}
