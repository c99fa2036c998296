import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
// The package's main module loads the whole Swagger UI bundle; the path helper alone is all the server needs.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { openApiDocument } from './openapi-document';
import { DomainError } from '../../../platform/errors/domain-error';
import { sendProblem } from '../../http/problem';
import { PrecompressedAssets } from '../../http/static-assets';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Tender Exchange gateway – REST API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/** Swagger UI's files are not versioned in their URLs: cached, and asked again (304) on each use. */
const REVALIDATE = 'public, max-age=0';

/** The contract as JSON, and Swagger UI served from the installed package: no CDN, no inline script. */
export function docsRoutes(): Router {
  const router = Router();
  const assets = new PrecompressedAssets();
  const contract = { text: JSON.stringify(openApiDocument), type: 'application/json' };
  router.get('/openapi.json', (req, res, next) => assets.send(req, res, next, '/openapi.json', contract, 'no-cache'));
  router.use('/docs', (_req, res, next) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    next();
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  // The package's own files, as listed at start: a name is looked up, never joined into a path.
  const folder = getAbsoluteFSPath();
  const files = new Set(
    readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name),
  );
  router.get('/docs/assets/:name', (req, res, next) => {
    const name = req.params.name;
    if (!files.has(name)) return sendProblem(res, new DomainError('NOT_FOUND', `No documentation asset at ${req.path}`));
    assets.send(req, res, next, name, { file: join(folder, name) }, REVALIDATE);
  });
  return router;
}
