import { join } from 'node:path';
import { Router } from 'express';
import { PrecompressedAssets } from '../http/static-assets';
import { PAGE_ASSETS_PATH } from './page-views';

/**
 * The pages' stylesheet and script: the files beside this one in `src/`, whether the gateway runs from `src/` (tsx) or
 * from `dist/` (the compiler copies no .css or .js; both trees put this file three levels below the package root).
 */
const OWN_FILES = join(__dirname, '..', '..', '..', 'src', 'api', 'pages', 'assets');
const FILES = ['pages.css', 'pages.js'];

/** `/pages/assets/pages.css` and `pages.js`, revalidated on every use (no-cache with their ETag). */
export function pageAssetRoutes(): Router {
  const router = Router();
  const assets = new PrecompressedAssets();
  for (const name of FILES) {
    router.get(`${PAGE_ASSETS_PATH}/${name}`, (req, res, next) => {
      res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
      assets.send(req, res, next, name, { file: join(OWN_FILES, name) }, 'no-cache');
    });
  }
  return router;
}
