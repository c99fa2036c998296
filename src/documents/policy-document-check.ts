import type { TenderChangeListener } from '../tenders';
import { badInput } from '../platform/errors/domain-error';
import { Document } from './document.entity';
import { DocumentKind, DocumentState } from './document-kind';

/**
 * confirmPolicyDocumentation's `documentId`, checked in the confirmation's transaction: a POLICY document of this
 * tender whose bytes arrived. Tenders know no documents; this listener refuses the confirmation otherwise.
 */
export const policyDocumentCheck: TenderChangeListener = async (em, change) => {
  if (change.kind !== 'policyDocumentationConfirmed' || !change.documentId) return;
  const document = await em.findOne(Document, { id: change.documentId, tender: change.tender.id, state: DocumentState.AVAILABLE });
  if (!document || document.kind !== DocumentKind.POLICY) {
    throw badInput('The policy documentation is invalid', [
      { parameter: 'documentId', message: 'must name a POLICY document of this tender whose upload finished' },
    ]);
  }
};
