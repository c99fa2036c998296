import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import type { DocumentContext } from '../document-context';
import { presentDocument } from '../document.resolver';
import { AdviceFormat } from './advice';
import { exportProposal } from './advice-export.service';
import { AdviceExportView } from './advice.types';

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
  ): Promise<AdviceExportView> {
    const { document, sha256 } = await exportProposal(context, tenderId, format);
    return { document: presentDocument(document, context.viewer), sha256 };
  }
}
