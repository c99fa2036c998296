import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Router, type Response } from 'express';
import { ROLES, rolesFor } from '../../../access';
import { DomainError } from '../../../platform/errors/domain-error';
import { methodNotAllowed } from '../../http/json-body';
import { sendProblem } from '../../http/problem';
import { PrecompressedAssets } from '../../http/static-assets';

/**
 * `/graphiql`: a GraphQL explorer that needs no internet. Apollo Sandbox (the landing page of `/graphql`) loads
 * from Apollo's CDN; this page is GraphiQL from its installed UMD build, with React's, all served by the gateway.
 * Its own script and styles are files too, so its Content-Security-Policy allows no inline script and nothing
 * from any other host.
 */
export const EXPLORER_PATH = '/graphiql';

/**
 * The style GraphiQL's dialogs add while they are open (react-remove-scroll-bar locks the page's scrolling with a
 * <style> element it creates at run time, with no way to give it a nonce from outside the bundle). Its text
 * depends only on the page's scroll bar and the body's margins, which the explorer's stylesheet keeps at none
 * (the page never scrolls: html hides its overflow, the editor fills the window), so this one hash is all the
 * inline style the page needs. Without it the dialogs still work, but the browser reports the refused style.
 * The browser test opens a dialog and fails on any CSP violation, so a GraphiQL upgrade that changes it shows.
 */
const DIALOG_SCROLL_LOCK_STYLE = "'sha256-Y/huXlwoYkVyQlxwSVcCi1RCDGDCSVBzDt0hYP9qlTc='";

/**
 * Everything from this host, nothing inline but that one style: scripts are 'self' only (no inline script, no
 * eval); fonts and images may also be data: URLs (GraphiQL's stylesheet embeds its fonts and icons); requests go
 * to this host only.
 */
const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${DIALOG_SCROLL_LOCK_STYLE}`,
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  url: string;
  file: string;
}

/**
 * A file of an installed package (named by its manifest, resolved where the package is listed so the unused-code check
 * sees it used), under a URL that names its version, so it can be cached for good.
 */
function packageAsset(manifest: string, path: string): Asset {
  const { name: pkg, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string };
  const name = path.split('/').pop() as string;
  return { url: `${EXPLORER_PATH}/assets/${pkg}@${version}/${name}`, file: join(dirname(manifest), path) };
}

const GRAPHIQL = require.resolve('graphiql/package.json');
const VENDOR = {
  react: packageAsset(require.resolve('react/package.json'), 'umd/react.production.min.js'),
  reactDom: packageAsset(require.resolve('react-dom/package.json'), 'umd/react-dom.production.min.js'),
  graphiql: packageAsset(GRAPHIQL, 'graphiql.min.js'),
  graphiqlMap: packageAsset(GRAPHIQL, 'graphiql.min.js.map'),
  graphiqlCss: packageAsset(GRAPHIQL, 'graphiql.min.css'),
  graphiqlCssMap: packageAsset(GRAPHIQL, 'graphiql.min.css.map'),
};

/** Which tokens load the schema, as the access policy's `introspection` entry has it. */
const INTROSPECTING = rolesFor('introspection');
const SCHEMA_HINT =
  INTROSPECTING.length === ROLES.length
    ? "every role's token also loads the schema"
    : `${INTROSPECTING.join(' and ')} tokens also load the schema`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Tender Exchange gateway – GraphQL explorer</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${VENDOR.graphiqlCss.url}" />
    <link rel="stylesheet" href="${EXPLORER_PATH}/explorer.css" />
  </head>
  <body>
    <form class="explorer-bar" id="explorer-token-form">
      <strong>Tender Exchange GraphQL</strong>
      <label for="explorer-token">Bearer token</label>
      <input id="explorer-token" type="password" autocomplete="off" spellcheck="false" placeholder="paste an access token (${SCHEMA_HINT})" data-schema-hint="${SCHEMA_HINT}" />
      <button id="explorer-token-clear" type="button">Forget</button>
      <span id="explorer-token-status" role="status"></span>
    </form>
    <main id="graphiql">Loading the explorer…</main>
    <script src="${VENDOR.react.url}"></script>
    <script src="${VENDOR.reactDom.url}"></script>
    <script src="${VENDOR.graphiql.url}"></script>
    <script src="${EXPLORER_PATH}/explorer.js"></script>
  </body>
</html>
`;

/**
 * The page's own script and styles: the files beside this one in `src/`, whether the gateway runs from `src/` (tsx)
 * or from `dist/` (the compiler copies no .js or .css; both trees put this file four levels below the package root).
 */
const OWN_FILES = join(__dirname, '..', '..', '..', '..', 'src', 'api', 'rest', 'explorer');

const NO_CACHE = 'no-cache';
const FOR_GOOD = 'public, max-age=31536000, immutable';

function sendText(res: Response, type: string, body: string): void {
  res.setHeader('Cache-Control', NO_CACHE);
  res.type(type).send(body);
}

/** The explorer page, its own script and styles, and the installed GraphiQL and React builds it loads. */
export function explorerRoutes(): Router {
  const router = Router();
  const files = new Map(Object.values(VENDOR).map((asset) => [asset.url, asset.file]));
  const assets = new PrecompressedAssets();
  const readOnly = methodNotAllowed('GET, HEAD', 'The explorer is a page: use GET');

  router.use(EXPLORER_PATH, (_req, res, next) => {
    res.setHeader('Content-Security-Policy', EXPLORER_CSP);
    next();
  });
  router.get(EXPLORER_PATH, (_req, res) => sendText(res, 'html', PAGE));
  for (const name of ['explorer.js', 'explorer.css']) {
    router.get(`${EXPLORER_PATH}/${name}`, (req, res, next) =>
      assets.send(req, res, next, name, { file: join(OWN_FILES, name) }, NO_CACHE),
    );
  }
  router.get(`${EXPLORER_PATH}/assets/:pkg/:name`, (req, res, next) => {
    const url = `${EXPLORER_PATH}/assets/${req.params.pkg}/${req.params.name}`;
    const file = files.get(url);
    if (!file) return sendProblem(res, new DomainError('NOT_FOUND', `No explorer asset at ${req.path}`));
    assets.send(req, res, next, url, { file }, FOR_GOOD);
  });
  router.all(
    [EXPLORER_PATH, `${EXPLORER_PATH}/explorer.js`, `${EXPLORER_PATH}/explorer.css`, `${EXPLORER_PATH}/assets/:pkg/:name`],
    readOnly,
  );
  return router;
}
