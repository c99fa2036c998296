import express, { Router } from 'express';
// The package's main module loads the whole Swagger UI bundle; the path helper alone is all the server needs.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import { openApiDocument } from './openapi-document';

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

/** The contract as JSON, and Swagger UI served from the installed package: no CDN, no inline script. */
export function docsRoutes(): Router {
  const router = Router();
  const body = JSON.stringify(openApiDocument);
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(body);
  });
  router.use('/docs', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
    next();
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use('/docs/assets', express.static(getAbsoluteFSPath(), { index: false, fallthrough: false }));
  return router;
}
