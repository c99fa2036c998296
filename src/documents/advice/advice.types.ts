import { Field, ObjectType } from 'type-graphql';
import { DocumentView } from '../document.types';

@ObjectType('AdviceExport', { description: 'An advice export: its ADVICE document and the SHA-256 written into the tender history.' })
export class AdviceExportView {
  @Field(() => DocumentView)
  document!: DocumentView;

  @Field(() => String, { description: "SHA-256 of the document's bytes, lower-case hex: the proof of what the client was shown." })
  sha256!: string;
}
