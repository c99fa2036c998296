import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { Allowed, sees as fieldRules, type RequestContext, type Viewer } from '../access';
import { TenderView } from '../tenders';
import type { DocumentContext } from './document-context';
import { Document } from './document.entity';
import { DocumentState } from './document-kind';
import { sees, visibilityOfVisible } from './document-facts';
import { createDocumentUpload } from './document.service';
import { CreateDocumentUploadInput, DocumentUploadView, DocumentView } from './document.types';
import { downloadUrl } from './download/document-download';

export const presentDocument = (document: Document, viewer: Viewer): DocumentView => ({
  id: document.id,
  tenderId: document.tender.id,
  kind: document.kind,
  filename: document.filename,
  contentType: document.contentType,
  size: document.size,
  sha256: document.sha256,
  createdAt: document.createdAt,
  quoteRequestId: document.quoteRequest?.id ?? null,
  addedBy: fieldRules.actors(viewer) ? document.addedBy : null,
  addedByRole: document.addedByRole,
});

/** The visible documents of every tender on a page in one query. */
const createDocumentLoader = ({ em, rows }: RequestContext) =>
  new DataLoader<string, Document[]>((tenderIds) =>
    rows.read(
      async () => {
        const found = await em.find(
          Document,
          { tender: { $in: [...tenderIds] }, state: DocumentState.AVAILABLE },
          { populate: ['quoteRequest'], orderBy: { createdAt: 'asc', id: 'asc' } },
        );
        return tenderIds.map((id) => found.filter((document) => document.tender.id === id));
      },
      (lists) => lists.reduce((sum, list) => sum + list.length, 0),
    ),
  );

/** What the tender's facts say of its documents: the view holds them beside its fields (tenders/read/tender-access.ts). */
const factsOf = (view: TenderView) => {
  const facts = view as TenderView & { awardedInsurerId?: string | null };
  return { id: view.id, status: view.status, brokerCompanyId: '', awardedInsurerId: facts.awardedInsurerId ?? null };
};

@Resolver(() => TenderView)
export class TenderDocumentsResolver {
  @FieldResolver(() => [DocumentView], {
    nullable: true,
    description: 'The documents of this tender the viewer may see, oldest first; null (withheld) where the tender is redacted.',
  })
  async documents(@Root() view: TenderView, @Ctx() context: DocumentContext): Promise<DocumentView[] | null> {
    const tender = factsOf(view);
    const visibility = visibilityOfVisible(context.viewer, tender);
    if (visibility === 'redacted') return null;
    const documents = await context.once(createDocumentLoader).load(view.id);
    return documents
      .filter((document) => sees(context.viewer, tender, visibility, document))
      .map((document) => presentDocument(document, context.viewer));
  }
}

@Resolver(() => DocumentView)
export class DocumentResolver {
  @Allowed('createDocumentUpload')
  @Mutation(() => DocumentUploadView, {
    description: 'A document and its single-use upload URL (15 minutes); the document is visible once its bytes arrived and matched.',
  })
  async createDocumentUpload(
    @Arg('input', () => CreateDocumentUploadInput) input: CreateDocumentUploadInput,
    @Ctx() context: DocumentContext,
  ): Promise<DocumentUploadView> {
    const { document, uploadUrl, expiresAt } = await createDocumentUpload(context, input);
    return { document: presentDocument(document, context.viewer), uploadUrl, expiresAt };
  }

  @FieldResolver(() => String, {
    description:
      'A link to the bytes, valid at most 15 minutes (signed; no bearer token needed). It opens the document only while it is still visible to the viewer it was given to.',
  })
  downloadUrl(@Root() document: DocumentView, @Ctx() context: DocumentContext): string {
    return downloadUrl(context, document);
  }
}
