import { Router } from 'express';
import { linkPageRoutes, type LinkPage, type LinkPageDeps } from './link-page';
import { pageAssetRoutes } from './page-assets';

/**
 * The pages for people without an API client (docs/people.md, "Pages for people"): each kind opened by its link, and
 * the stylesheet and script they share. Mounted before the API's authentication and client rate limit: a page has
 * its own (the link, and the rate limits per address and per link).
 */
export function pageRoutes(deps: LinkPageDeps, pages: readonly LinkPage[]): Router {
  const router = Router();
  router.use(pageAssetRoutes());
  for (const page of pages) router.use(linkPageRoutes(deps, page));
  return router;
}
