import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Readable } from 'node:stream';
import { AccessSurface, type AccessChannel, type Operation } from '../../../access';
import {
  LINK_PATH,
  UPLOAD_PATH,
  contentDisposition,
  contentOf,
  findUpload,
  linkedDocument,
  receiveUpload,
  storedDocument,
  type DocumentServices,
  type UploadAdmission,
  type UploadStop,
  type UploadTicket,
} from '../../../documents';
import { DomainError, notFound } from '../../../platform/errors/domain-error';
import { prepareOperation } from '../../graphql/prepared-operation';
import { authorisedContext, requestScopeOf } from '../../http/request-context';
import { methodNotAllowed } from '../../http/json-body';
import { noneMatches } from '../../http/entity-tag';
import { sendProblem } from '../../http/problem';
import { streamAnswer } from '../../http/stream-answer';
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

/**
 * The bytes as an attachment, tagged with their SHA-256: 304 when the client has them, or asks with
 * `If-None-Match: *` (the document exists: its visibility was checked before).
 */
async function sendBytes(
  req: Request,
  res: Response,
  document: { sha256: string; filename: string; contentType: string; size: number },
  open: () => Promise<{ redirect: string } | { stream: Readable }>,
): Promise<void> {
  const etag = etagOf(document.sha256);
  res.set({ ETag: etag, 'Cache-Control': 'private, no-cache' });
  if (!noneMatches(req.headers['if-none-match'], etag)) {
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
 * The slowest an upload may arrive, bytes per second: its deadline is REQUEST_TIMEOUT_MS plus its size at this rate (a
 * 20 MiB document: 20 s more). The HTTP server's own limit on receiving a whole request (60 s) still applies, and so
 * does the minimum rate over each window (DOCUMENT_UPLOAD_MIN_RATE), checked by the upload admission.
 */
const UPLOAD_DEADLINE_BYTES_PER_SECOND = 1024 * 1024;

/**
 * An answer sent before the upload's body was all read: the connection closes after it, so the rest of the body is not
 * read (and a slow client holds nothing more of the process).
 */
function answerEarly(res: Response, error: DomainError, headers: Record<string, string> = {}): void {
  sendProblem(res, error, { Connection: 'close', ...headers });
}

/** An upload past its deadline or below the minimum rate: answered, and its body no longer read. */
function stopUpload(req: Request, res: Response, why: UploadStop, limits: UploadAdmission['limits']): void {
  const error =
    why.reason === 'deadline'
      ? new DomainError('SERVICE_UNAVAILABLE', 'The upload took longer than its deadline: nothing was stored and its upload URL is spent')
      : new DomainError(
          'REQUEST_TIMEOUT',
          `The upload arrived at ${why.bytesPerSecond} bytes/s, slower than the minimum of ${limits.minBytesPerSecond} bytes/s over ` +
            `${limits.rateWindowMs / 1000} s: it was stopped, nothing was stored and its upload URL is spent; ` +
            'create a new upload slot (createDocumentUpload) to send it again',
        );
  // The answer first, then the body's stream ends with the error (its upload is undone): the server forgets a request
  // once its answer went out, so the connection's close would not end the stream.
  if (res.headersSent) return void req.destroy(error);
  res.once('close', () => req.destroy(error));
  answerEarly(res, error);
}

/**
 * The upload admission's first step, mounted ahead of everything but the request's log line and headers: an upload
 * beyond the process's most at once is answered 503 with Retry-After at once, before its body, its rate limit or
 * anything else of it is looked at (a burst of thousands costs little each). Taken in, it holds its place until its
 * request ends; the route then counts it against its slot's API client.
 */
export function admitUploads(uploads: UploadAdmission): RequestHandler {
  return (_req, res, next) => {
    const ticket = uploads.enter();
    if (!ticket) {
      answerEarly(
        res,
        new DomainError(
          'SERVICE_UNAVAILABLE',
          `The gateway is receiving ${uploads.limits.concurrency} uploads, its most at once: this one was not started and its upload URL is still valid; try again after Retry-After`,
        ),
        { 'Retry-After': String(uploads.retryAfterSeconds) },
      );
      return;
    }
    res.once('close', () => ticket.release());
    res.locals.uploadTicket = ticket;
    next();
  };
}

/**
 * Thin shims: the lists and the content run the prepared operation (who sees what is the access policy's rule,
 * behind `Tender.documents`); the upload URL and the gateway's download links need no bearer token, the URL is the
 * credential, and stream straight to and from the store. Uploads pass the admission first (`uploads`: how many at once,
 * per process and per API client, and how slow).
 */
export function documentRoutes(
  schema: GraphQLSchema,
  services: DocumentServices,
  uploads: UploadAdmission,
  requestTimeoutMs: number,
): Router {
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
      const shown = { sha256: document.sha256, filename: document.filename, contentType: document.content_type, size: document.size };
      // The row names the store its bytes are in.
      await sendBytes(req, res, shown, async () => contentOf(services, await storedDocument(requestScopeOf(res).em, document._id)));
    });
  }

  router.put(`${UPLOAD_PATH}/:token`, async (req, res) => {
    try {
      await upload(req, res);
    } catch (error) {
      // Refused before its body was all read: nothing more of it is read.
      if (!req.complete) res.setHeader('Connection', 'close');
      throw error;
    }
  });
  const upload = async (req: Request, res: Response) => {
    if (Object.keys(req.query).length > 0) throw new DomainError('BAD_USER_INPUT', 'An upload URL takes no query parameters');
    const ticket = res.locals.uploadTicket as UploadTicket | undefined;
    if (!ticket) throw new Error('admitUploads is not mounted before the upload route');
    const length = req.headers['content-length'];
    // Not the generic request timeout (a large upload takes longer): one sized to the document; past it, the upload
    // stops and stores nothing.
    const size = Math.min(Number(length ?? services.maxBytes) || services.maxBytes, services.maxBytes);
    const deadlineAt = Date.now() + requestTimeoutMs + Math.ceil((size / UPLOAD_DEADLINE_BYTES_PER_SECOND) * 1000);
    const em = requestScopeOf(res).em;
    const slot = await findUpload(em, String(req.params.token));
    if (!ticket.claimFor(slot.addedBy)) {
      answerEarly(
        res,
        new DomainError(
          'SERVICE_UNAVAILABLE',
          `The API client that created this upload slot has ${uploads.limits.concurrencyPerClient} uploads in flight, its most at once: this one was not started and its upload URL is still valid; try again after Retry-After`,
        ),
        { 'Retry-After': String(uploads.retryAfterSeconds) },
      );
      return;
    }
    ticket.watch(req.socket, slot.size, deadlineAt, (why) => stopUpload(req, res, why, uploads.limits));
    const document = await receiveUpload(em, services, slot, req, length === undefined ? undefined : Number(length), new Date(deadlineAt));
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
  };
  router.all(`${UPLOAD_PATH}/:token`, methodNotAllowed('PUT'));

  router.get(`${LINK_PATH}/:token`, async (req, res) => {
    const document = await linkedDocument(requestScopeOf(res).em, services, req.params.token);
    await sendBytes(req, res, document, () => contentOf(services, document));
  });
  return router;
}
