import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import type { DocumentContext } from '../document-context';
import { presentDocument } from '../document.resolver';
import { AdviceFormat, AdviceLanguage } from './advice';
import { exportProposal } from './advice-export.service';
import { AdviceExportView, AdviceInput } from './advice.types';

@Resolver()
export class AdviceResolver {
  @Allowed('exportProposal')
  @Mutation(() => AdviceExportView, {
    description:
      "The proposal overview as the broker shows it to its client (§61 VVG), stored as an ADVICE document; its SHA-256 goes into the tender's history (docs/privacy.md).",
  })
  async exportProposal(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('format', () => AdviceFormat) format: AdviceFormat,
    @Ctx() context: DocumentContext,
    @Arg('advice', () => AdviceInput, { nullable: true, description: 'The advice given (§ 61 VVG); the export records it.' })
    advice?: AdviceInput | null,
    @Arg('language', () => AdviceLanguage, {
      defaultValue: AdviceLanguage.DE,
      description: "The document's language: labels, numbers, dates.",
    })
    language?: AdviceLanguage,
  ): Promise<AdviceExportView> {
    const { document, sha256 } = await exportProposal(context, tenderId, format, { language, advice });
    return { document: presentDocument(document, context.viewer), sha256 };
  }
}
