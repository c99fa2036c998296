import type { EntityManager } from '@mikro-orm/core';
import type { Readable } from 'node:stream';
import type { Viewer } from '../../access';
import { TenderInvitation, visibilityOf } from '../../tenders';
import { notFound } from '../../platform/errors/domain-error';
import type { DocumentContext, DocumentServices } from '../document-context';
import { Document } from '../document.entity';
import { DocumentState } from '../document-kind';
import { REDIRECT_TTL_MS } from '../document-rules';
import { sees, tenderOfDocuments } from '../document-facts';

/** The path of the download links (`GET`, no bearer token: the link is the credential). */
export const LINK_PATH = '/integration/v1/document-links';

/** What reading a document's bytes needs of it: which bytes, in which store, under which name. */
interface Downloadable {
  id: string;
  sha256: string;
  filename: string;
  contentType: string;
  store?: string | null;
}

/**
 * A link to a document the viewer may see, valid DOCUMENT_LINK_TTL (15 minutes at most): the gateway's own, on both
 * stores, so the document's visibility to the viewer is checked again when it is used (`linkedDocument`).
 */
export function downloadUrl(context: Pick<DocumentContext, 'documents' | 'publicOrigin' | 'viewer'>, document: { id: string }): string {
  const { links, linkTtlMs } = context.documents;
  return `${context.publicOrigin}${LINK_PATH}/${links.sign(document.id, context.viewer, new Date(Date.now() + linkTtlMs))}`;
}

/**
 * The bytes of a document whose visibility was just checked, from the store its row names: a stream, or a signed link
 * of that store (S3) valid only long enough to follow the redirect.
 */
export async function contentOf(services: DocumentServices, document: Downloadable): Promise<{ redirect: string } | { stream: Readable }> {
  const expiresAt = new Date(Date.now() + Math.min(REDIRECT_TTL_MS, services.linkTtlMs));
  const redirect = await services.store.presign(document, expiresAt);
  return redirect ? { redirect } : { stream: await services.store.read(document) };
}

/** A visible document's row, for the content route (the store its bytes are in). */
export async function storedDocument(em: EntityManager, documentId: string): Promise<Document> {
  const document = await em.findOne(Document, { id: documentId, state: DocumentState.AVAILABLE });
  if (!document) throw notFound(`Document ${documentId} not found`);
  return document;
}

/**
 * The document a download link opens: the link genuine and unexpired, the document still there, and still visible to
 * whom the link was given, by the same rule as the document lists (the tender's audience rule and the access
 * policy's `seesDocument`), for every kind and store. Anything else is one 404, as for a document never seen.
 */
export async function linkedDocument(em: EntityManager, services: DocumentServices, token: string): Promise<Document> {
  const gone = () => notFound('No document at this link: unknown, expired, deleted, or no longer visible');
  const link = services.links.verify(token);
  if (!link) throw gone();
  const document = await em.findOne(
    Document,
    { id: link.documentId, state: DocumentState.AVAILABLE },
    { populate: ['tender', 'quoteRequest'] },
  );
  if (!document) throw gone();
  // The rule reads a viewer's role and party only: the link's holder, as the viewer it was when it got the link.
  const viewer = link.holder as Viewer;
  const tender = tenderOfDocuments(document.tender);
  const invitations = await em.find(TenderInvitation, { tender: tender.id });
  const visibility = visibilityOf(viewer, { ...tender, invitedInsurerIds: invitations.map((invitation) => invitation.insurer.id) });
  if (!sees(viewer, tender, visibility, document)) throw gone();
  return document;
}
