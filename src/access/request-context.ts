import type { EntityManager } from '@mikro-orm/core';
import type { UrlAllowList } from '../platform/http/url-allow-list';
import type { RowBudget } from '../platform/db/row-budget';
import type { Viewer } from './viewer';
import type { AccessChannel, AccessRecorder } from './access-recorder';
import type { Clock } from '../platform/tasks/clock';

/**
 * What every request carries, whatever its transport (GraphQL, a REST route, the callback): built once per
 * request by the API's context middleware. Features that need more extend it (tenders: `TenderContext`).
 */
export interface RequestContext {
  /** This request's own EntityManager fork. */
  em: EntityManager;
  viewer: Viewer;
  /** The rows this operation may still read. */
  rows: RowBudget;
  /**
   * This request's one instance of what `create` makes: a feature's DataLoaders live here, so a page of
   * tenders costs the same few queries at any size and no batch outlives its request.
   */
  once<T>(create: (context: RequestContext) => T): T;
  /** Tells the quote dispatcher that new work was committed. */
  wakeDispatcher: (insurerId?: string) => void;
  /** Which insurer URLs may be registered (INSURER_URL_ALLOW). */
  insurerUrls: UrlAllowList;
  /**
   * Aborted when the request ends (answered, timed out with its 503, or the client gone): partner calls a
   * resolver makes stop with it, so none outlives the request that asked for it.
   */
  signal: AbortSignal;
  /** Where reads of personal data are recorded (the access log). */
  accessLog: AccessRecorder;
  /** The REST route or document download this request answers; unset, GraphQL (the resolver names its field). */
  channel?: AccessChannel;
  /** The gateway's one clock (createApp's): what is in effect when (an insurer's requirements) is read from it. */
  clock: Clock;
}
