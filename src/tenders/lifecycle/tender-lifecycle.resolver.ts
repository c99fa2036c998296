import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { Allowed } from '../../access';
import type { TenderContext } from './tender-context';
import { historyLoader } from './tender-history.loader';
import { TenderLifecycleService } from './tender-lifecycle.service';
import { presentHistory, presentTenderEntity } from '../read/tender-access';
import { PolicyPeriodInput, TenderHistoryEntryView, TenderView } from '../read/tender.types';

/** The tender lifecycle (DESIGN 3): each mutation answers the tender as the caller may now see it. */
@Resolver(() => TenderView)
export class TenderLifecycleResolver {
  @Allowed('startNegotiation')
  @Mutation(() => TenderView, { description: 'QUOTES_AVAILABLE or REOPENED → IN_NEGOTIATION.' })
  async startNegotiation(@Arg('tenderId', () => ID) tenderId: string, @Ctx() context: TenderContext): Promise<TenderView> {
    return presentTenderEntity(
      await new TenderLifecycleService(context.em, context.viewer, context.tenderChanges).startNegotiation(tenderId),
      context,
      'startNegotiation',
    );
  }

  @Allowed('finaliseContract')
  @Mutation(() => TenderView, {
    description:
      'IN_COVERNOTE → SUCCESSFUL, by the insurer of the ordered option; refused with SUBJECTIVITIES_OPEN while a pre-bind ' +
      'subjectivity of the ordered option is neither ACCEPTED nor WAIVED. A pending order counts as accepted.',
  })
  async finaliseContract(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('policyPeriod', () => PolicyPeriodInput, {
      nullable: true,
      description: 'Default: from the inception date (or today in Europe/Berlin), one year less a day.',
    })
    policyPeriod: PolicyPeriodInput | null,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(await this.service(context).finaliseContract(tenderId, policyPeriod ?? {}), context, 'finaliseContract');
  }

  @Allowed('acceptCoverOrder')
  @Mutation(() => TenderView, {
    description: 'The insurer of the ordered option accepts the order for an inception date (YYYY-MM-DD); the status stays IN_COVERNOTE.',
  })
  async acceptCoverOrder(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('inceptionDate', () => String) inceptionDate: string,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(await this.service(context).acceptCoverOrder(tenderId, inceptionDate), context, 'acceptCoverOrder');
  }

  @Allowed('declineCoverOrder')
  @Mutation(() => TenderView, {
    description: 'IN_COVERNOTE → IN_NEGOTIATION: the insurer of the ordered option declines the order; the order is dropped.',
  })
  async declineCoverOrder(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(await this.service(context).declineCoverOrder(tenderId, reason), context, 'declineCoverOrder');
  }

  private service(context: TenderContext): TenderLifecycleService {
    return new TenderLifecycleService(context.em, context.viewer, context.tenderChanges, () => context.clock.now());
  }

  @Allowed('closeTender')
  @Mutation(() => TenderView, { description: 'Any open status → CLOSED.' })
  async closeTender(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(
      await new TenderLifecycleService(context.em, context.viewer, context.tenderChanges).closeTender(tenderId, reason),
      context,
      'closeTender',
    );
  }

  @Allowed('reopenTender')
  @Mutation(() => TenderView, { description: 'CLOSED → REOPENED; an earlier order to cover no longer stands.' })
  async reopenTender(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(
      await new TenderLifecycleService(context.em, context.viewer, context.tenderChanges).reopenTender(tenderId, reason),
      context,
      'reopenTender',
    );
  }

  @Allowed('confirmPolicyDocumentation')
  @Mutation(() => TenderView, { description: 'The winning insurer confirms the policy documentation of a SUCCESSFUL tender.' })
  async confirmPolicyDocumentation(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('policyNumber', () => String) policyNumber: string,
    @Arg('confirmedAt', () => TimestampScalar, { nullable: true }) confirmedAt: Date | null,
    @Arg('documentId', () => ID, { nullable: true, description: 'The POLICY document of this tender, once uploaded.' })
    documentId: string | null,
    @Ctx() context: TenderContext,
  ): Promise<TenderView> {
    return presentTenderEntity(
      await new TenderLifecycleService(context.em, context.viewer, context.tenderChanges).confirmPolicyDocumentation(
        tenderId,
        policyNumber,
        confirmedAt,
        documentId,
      ),
      context,
      'confirmPolicyDocumentation',
    );
  }

  @FieldResolver(() => [TenderHistoryEntryView], { description: 'Every status change, oldest first.' })
  async history(@Root() view: TenderView, @Ctx() context: TenderContext): Promise<TenderHistoryEntryView[]> {
    return presentHistory(await historyLoader(context).load(view.id), view.redacted, context.viewer);
  }
}
