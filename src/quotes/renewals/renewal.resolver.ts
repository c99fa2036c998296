import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Allowed, Role, type RequestContext } from '../../access';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { RenewalType, Tender, TenderView, presentTenderEntity } from '../../tenders';
import type { QuoteContext } from '../quote-context';
import { proposalLoader } from '../proposal/proposal.loader';
import { ProposalView } from '../proposal/proposal.types';
import {
  expiringPremiumOf,
  notifyNonRenewal,
  recordRenewalDecision,
  renewTender,
  renewalStatusOf,
  renewals,
  setRenewalTerms,
  type RenewalDeps,
} from './renewal.service';
import { RenewalComparisonView, RenewalDecision, RenewalStatus, RenewalView } from './renewal.types';

const depsOf = (context: QuoteContext): RenewalDeps => ({
  em: context.em,
  viewer: context.viewer,
  listeners: context.quoteEvents,
  now: () => context.clock.now(),
});

/** A renewal for its broker or an internal user: the tender as they see it, and what only they see. */
async function presentRenewal(tender: Tender, context: QuoteContext, field: string): Promise<RenewalView> {
  const expiring = await expiringPremiumOf(context.em, tender);
  return {
    tender: presentTenderEntity(tender, context, field),
    status: renewalStatusOf(tender, context.clock.now()),
    noticeDeadline: tender.noticeDeadline!,
    noticePeriodMonths: tender.noticePeriodMonths!,
    periodEnd: tender.renewalPeriodEnd!,
    incumbentInsurer: tender.awardedInsurer ?? null,
    expiringPremium: expiring?.premium ?? null,
    decision: (tender.renewalDecision as RenewalDecision | null | undefined) ?? null,
    decisionReason: tender.renewalDecisionReason ?? null,
    decidedAt: tender.renewalDecidedAt ?? null,
    nonRenewalNotifiedAt: tender.nonRenewalNotifiedAt ?? null,
    nonRenewalReason: tender.nonRenewalReason ?? null,
    renewedBy: tender.renewedBy ?? null,
  };
}

/** Renewals on the notice deadline (docs/renewals.md). */
@Resolver()
export class RenewalResolver {
  @Allowed('setRenewalTerms')
  @Mutation(() => TenderView, {
    description:
      "How a SUCCESSFUL tender's contract renews and its notice period (1-3 months): by its broker, its insurer (the awarded one) or an internal user. The notice deadline follows from the policy period.",
  })
  async setRenewalTerms(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('type', () => RenewalType) type: RenewalType,
    @Arg('noticePeriodMonths', () => Int) noticePeriodMonths: number,
    @Ctx() context: QuoteContext,
  ): Promise<TenderView> {
    return presentTenderEntity(await setRenewalTerms(depsOf(context), { tenderId, type, noticePeriodMonths }), context, 'setRenewalTerms');
  }

  @Allowed('renewals')
  @Query(() => [RenewalView], {
    description: 'SUCCESSFUL tenders whose notice deadline comes before `dueBefore`, soonest first: a broker its company’s.',
  })
  async renewals(
    @Arg('dueBefore', () => TimestampScalar) dueBefore: Date,
    @Arg('status', () => RenewalStatus, { nullable: true }) status: RenewalStatus | null,
    @Arg('limit', () => Int, { nullable: true, description: 'At most this many (1-200, default 100).' }) limit: number | null,
    @Ctx() context: QuoteContext,
  ): Promise<RenewalView[]> {
    const found = await renewals(depsOf(context), { dueBefore, status, limit });
    return Promise.all(found.map((tender) => presentRenewal(tender, context, 'renewals')));
  }

  @Allowed('renewTender')
  @Mutation(() => TenderView, {
    description:
      "A new tender for the same customer and product, linked both ways (renewalOf, renewedBy), with last year's risk answers carried over (CARRIED_OVER): confirm or change them before requesting quotes.",
  })
  async renewTender(@Arg('tenderId', () => ID) tenderId: string, @Ctx() context: QuoteContext): Promise<TenderView> {
    return presentTenderEntity(await renewTender(depsOf(context), tenderId), context, 'renewTender');
  }

  @Allowed('recordRenewalDecision')
  @Mutation(() => RenewalView, { description: 'The broker’s decision for the coming renewal; never shown to an insurer.' })
  async recordRenewalDecision(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('decision', () => RenewalDecision) decision: RenewalDecision,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: QuoteContext,
  ): Promise<RenewalView> {
    return presentRenewal(await recordRenewalDecision(depsOf(context), { tenderId, decision, reason }), context, 'recordRenewalDecision');
  }

  @Allowed('notifyNonRenewal')
  @Mutation(() => RenewalView, {
    description:
      'Records that notice of non-renewal was given, before the notice deadline (CONFLICT after it, naming it), and tells the incumbent insurer (POLICY_NON_RENEWAL_NOTIFIED).',
  })
  async notifyNonRenewal(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() context: QuoteContext,
  ): Promise<RenewalView> {
    return presentRenewal(await notifyNonRenewal(depsOf(context), { tenderId, reason }), context, 'notifyNonRenewal');
  }
}

/** The proposal of a renewal tender against the expiring contract: to its broker and internal users, never an insurer. */
@Resolver(() => ProposalView)
export class RenewalComparisonResolver {
  @FieldResolver(() => RenewalComparisonView, {
    nullable: true,
    description: "A renewal tender's options against the expiring premium: its broker and internal users only (null for everyone else).",
  })
  async renewal(@Root() proposal: ProposalView, @Ctx() context: RequestContext): Promise<RenewalComparisonView | null> {
    if (context.viewer.role !== Role.BROKER && context.viewer.role !== Role.INTERNAL) return null;
    const tender = await context.em.findOne(Tender, { id: proposal.tenderId }, { fields: ['id', 'renewalOf', 'brokerCompany'] });
    if (!tender?.renewalOf) return null;
    if (context.viewer.role === Role.BROKER && tender.brokerCompany.id !== context.viewer.brokerCompanyId) return null;
    const old = await context.em.findOne(Tender, { id: tender.renewalOf }, { populate: ['awardedInsurer', 'orderedOption'] });
    if (!old) return null;
    const expiring = await expiringPremiumOf(context.em, old);
    const { proposal: overview } = await proposalLoader(context).load(proposal.tenderId);
    const premiumChanges = expiring
      ? overview.entries.flatMap((entry) =>
          entry.quoteRequest.options
            .filter((option) => option.currency === expiring.currency)
            .map((option) => ({
              quoteOptionId: option.id,
              change: Math.round((option.premium - expiring.premium) * 100) / 100,
              changeRatio:
                expiring.premium > 0 ? Math.round(((option.premium - expiring.premium) / expiring.premium) * 10_000) / 10_000 : null,
            })),
        )
      : [];
    return { renewalOf: old.id, incumbentInsurer: old.awardedInsurer ?? null, expiringPremium: expiring?.premium ?? null, premiumChanges };
  }
}
