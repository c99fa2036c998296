import { registerEnumType } from 'type-graphql';

/** What a document is (docs/documents.md); who adds and who sees which kind is the access policy's. */
export enum DocumentKind {
  /** The risk file: questionnaire, financial statements, loss history. */
  RISK = 'RISK',
  /** An insurer's quote document (the slip) for its own quote request. */
  QUOTE = 'QUOTE',
  /** The policy itself, from the insurer that won. */
  POLICY = 'POLICY',
  OTHER = 'OTHER',
  /**
   * The proposal overview as the broker showed it to its client (§61 VVG): made by the gateway (exportProposal), never
   * uploaded; its SHA-256 is in the tender's history. Seen by the tender's broker and internal users only.
   */
  ADVICE = 'ADVICE',
}
registerEnumType(DocumentKind, { name: 'DocumentKind' });

export enum DocumentState {
  /** An upload slot: the bytes have not arrived (or not yet matched). Visible to nobody. */
  PENDING = 'PENDING',
  AVAILABLE = 'AVAILABLE',
}
