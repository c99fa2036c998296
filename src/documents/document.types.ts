import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { DocumentKind } from './document-kind';

@ObjectType('Document', { description: 'A document of a tender whose bytes arrived (docs/documents.md).' })
export class DocumentView {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  tenderId!: string;

  @Field(() => DocumentKind)
  kind!: DocumentKind;

  @Field(() => String, { description: 'Made safe: no path, no control characters, at most 255 bytes.' })
  filename!: string;

  @Field(() => String)
  contentType!: string;

  @Field(() => Int, { description: 'In bytes.' })
  size!: number;

  @Field(() => String, { description: 'SHA-256 of the bytes, lower-case hex.' })
  sha256!: string;

  @Field(() => TimestampScalar)
  createdAt!: Date;

  @Field(() => ID, { nullable: true, description: 'The quote request of a QUOTE document.' })
  quoteRequestId!: string | null;

  @Field(() => String, { nullable: true, description: 'The app_id of the API client that added it; null for insurers.' })
  addedBy!: string | null;

  @Field(() => String, { description: 'The role of the API client that added it.' })
  addedByRole!: string;
}

@InputType('CreateDocumentUploadInput')
export class CreateDocumentUploadInput {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => DocumentKind)
  kind!: DocumentKind;

  @Field(() => String, { description: 'The file name; path separators and control characters are made safe.' })
  filename!: string;

  @Field(() => String, { description: 'PDF, PNG, JPEG, DOCX, XLSX, plain text or CSV; checked against the bytes.' })
  contentType!: string;

  @Field(() => Int, { description: 'In bytes, at most DOCUMENT_MAX_BYTES.' })
  size!: number;

  @Field(() => String, { description: 'SHA-256 of the bytes, 64 hex digits.' })
  sha256!: string;

  @Field(() => ID, { nullable: true, description: 'For a QUOTE document: the quote request it belongs to.' })
  quoteRequestId?: string | null;
}

@ObjectType('DocumentUpload', { simpleResolvers: true })
export class DocumentUploadView {
  @Field(() => DocumentView, { description: 'Visible to others only once its bytes arrived and matched.' })
  document!: DocumentView;

  @Field(() => String, { description: 'PUT the bytes here, once, without a bearer token: the URL is the credential.' })
  uploadUrl!: string;

  @Field(() => TimestampScalar)
  expiresAt!: Date;
}
