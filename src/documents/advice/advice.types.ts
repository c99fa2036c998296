import { Field, InputType, ObjectType } from 'type-graphql';
import { LIMITS } from '../../platform/validation/rules';
import { DocumentView } from '../document.types';

@ObjectType('AdviceExport', { description: 'An advice export: its ADVICE document and the SHA-256 written into the tender history.' })
export class AdviceExportView {
  @Field(() => DocumentView)
  document!: DocumentView;

  @Field(() => String, { description: "SHA-256 of the document's bytes, lower-case hex: the proof of what the client was shown." })
  sha256!: string;
}

@InputType('AdviceInput', { description: 'The advice given to the customer (§ 61 VVG), recorded in the export (docs/documents.md).' })
export class AdviceInput {
  @Field(() => String, {
    description: `The customer's wishes and needs; at most ${LIMITS.adviceWishesAndNeeds} characters, line breaks allowed.`,
  })
  wishesAndNeeds!: string;

  @Field(() => String, {
    description: `The recommendation, free text (it may name an option or an insurer); at most ${LIMITS.adviceRecommendation} characters.`,
  })
  recommendation!: string;

  @Field(() => String, { description: `The recommendation's reasons; at most ${LIMITS.adviceReasons} characters, line breaks allowed.` })
  reasons!: string;
}
