import { Router, type Request, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Readable } from 'node:stream';
import { AccessSurface, type AccessChannel, type Operation } from '../../../access';
import {
  LINK_PATH,
  UPLOAD_PATH,
  contentDisposition,
  contentOf,
  linkedDocument,
  receiveUpload,
  type DocumentServices,
} from '../../../documents';
import { DomainError, notFound } from '../../../platform/errors/domain-error';
import { prepareOperation } from '../../graphql/prepared-operation';
import { authorisedContext, requestScopeOf } from '../../http/request-context';
import { methodNotAllowed } from '../../http/json-body';
import { answerWithin } from '../../http/request-timeout';
import { streamAnswer } from '../../http/stream-answer';
import { namesTag } from '../../http/entity-tag';
import { assertNoQuery } from '../tenders/tender-query-params';
import { REST_TENDER_DOCUMENTS } from './document-operations.graphql';

/** A document as the REST list shows it (spec names). */
interface RestDocument {
  _id: string;
  kind: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  created_at: string;
  quote_request_id: string | null;
}

/** The read APIs' document routes: each API's list, and the content of one document. */
export const DOCUMENT_ROUTES: readonly { prefix: string; access: Operation }[] = [
  { prefix: '/public/v1/tenders/:id/documents', access: 'insurerApi' },
  { prefix: '/api/v1/tenders/:id/documents', access: 'brokerApi' },
];

const etagOf = (sha256: string) => `"${sha256}"`;

/** The bytes as an attachment, tagged with their SHA-256: 304 when the client has them. */
async function sendBytes(
  req: Request,
  res: Response,
  document: { sha256: string; filename: string; contentType: string; size: number },
  open: () => Promise<{ redirect: string } | { stream: Readable }>,
): Promise<void> {
  const etag = etagOf(document.sha256);
  res.set({ ETag: etag, 'Cache-Control': 'private, no-cache' });
  if (namesTag(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  const content = await open();
  if ('redirect' in content) {
    res.redirect(302, content.redirect);
    return;
  }
  res.set({
    'Content-Type': document.contentType,
    'Content-Length': String(document.size),
    'Content-Disposition': contentDisposition(document.filename),
    'X-Content-Type-Options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    content.stream.destroy();
    res.end();
    return;
  }
  await streamAnswer(res, content.stream);
}

/**
 * Thin shims: the lists and the content run the prepared operation (who sees what is the access policy's rule,
 * behind `Tender.documents`); the upload URL and the gateway's download links need no bearer token, the URL is the
 * credential, and stream straight to and from the store.
 */
/**
 * The slowest an upload may arrive, bytes per second: its deadline is REQUEST_TIMEOUT_MS plus its size at this rate (a
 * 20 MiB document: 20 s more). The HTTP server's own limit on receiving a whole request (60 s) still applies.
 */
const UPLOAD_MIN_BYTES_PER_SECOND = 1024 * 1024;

export function documentRoutes(schema: GraphQLSchema, services: DocumentServices, requestTimeoutMs: number): Router {
  const documents = prepareOperation(schema, REST_TENDER_DOCUMENTS);
  const router = Router();

  const visibleDocuments = async (req: Request, res: Response, access: Operation, channel: AccessChannel) => {
    const context = await authorisedContext(res, access);
    assertNoQuery(req);
    context.channel = channel;
    const tenderId = String(req.params.id);
    const data = await documents.run(context, { id: tenderId });
    const tender = data.tender as { redacted: boolean; documents: RestDocument[] | null };
    if (tender.redacted || !tender.documents) throw notFound(`Tender ${tenderId} not found`);
    return tender.documents;
  };

  for (const route of DOCUMENT_ROUTES) {
    router.get(route.prefix, async (req, res) => {
      const list = await visibleDocuments(req, res, route.access, { surface: AccessSurface.REST, operation: `GET ${route.prefix}` });
      res.set('Cache-Control', 'private, no-cache').json({
        metadata: { count: String(list.length), skip: '0', limit: String(list.length), sort: {} },
        payload: list,
      });
    });
    router.get(`${route.prefix}/:documentId/content`, async (req, res) => {
      const channel = { surface: AccessSurface.DOCUMENT, operation: `GET ${route.prefix}/:documentId/content` };
      const document = (await visibleDocuments(req, res, route.access, channel)).find(
        (candidate) => candidate._id === req.params.documentId,
      );
      if (!document) throw notFound(`Document ${req.params.documentId} not found`);
      const stored = { id: document._id, sha256: document.sha256, filename: document.filename, contentType: document.content_type };
      await sendBytes(req, res, { ...stored, size: document.size }, () => contentOf(services, stored));
    });
  }

  router.put(`${UPLOAD_PATH}/:token`, async (req, res) => {
    if (Object.keys(req.query).length > 0) throw new DomainError('BAD_USER_INPUT', 'An upload URL takes no query parameters');
    const length = req.headers['content-length'];
    // Not the generic request timeout (a large upload takes longer): one sized to the document; past it, the upload
    // stops and stores nothing.
    const size = Math.min(Number(length ?? services.maxBytes) || services.maxBytes, services.maxBytes);
    answerWithin(res, requestTimeoutMs + Math.ceil((size / UPLOAD_MIN_BYTES_PER_SECOND) * 1000), () =>
      req.destroy(new Error('the upload took too long')),
    );
    const document = await receiveUpload(
      requestScopeOf(res).em,
      services,
      req.params.token,
      req,
      length === undefined ? undefined : Number(length),
    );
    res.json({
      _id: document.id,
      kind: document.kind,
      filename: document.filename,
      content_type: document.contentType,
      size: document.size,
      sha256: document.sha256,
      created_at: document.createdAt.toISOString(),
      quote_request_id: document.quoteRequest?.id ?? null,
    });
  });
  router.all(`${UPLOAD_PATH}/:token`, methodNotAllowed('PUT'));

  router.get(`${LINK_PATH}/:token`, async (req, res) => {
    const document = await linkedDocument(requestScopeOf(res).em, services, req.params.token);
    await sendBytes(req, res, document, async () => ({ stream: await services.store.read(document) }));
  });
  return router;
}
