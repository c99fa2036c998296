import { Arg, Authorized, Ctx, FieldResolver, GraphQLISODateTime, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/role';
import type { RequestContext } from '../graphql/context';
import { TenderCreationService } from './tender-creation.service';
import { TenderLifecycleService } from './tender-lifecycle.service';
import { CreateTenderInput, TenderHistoryEntryView } from './tender-lifecycle.types';
import { TenderStatistics, tenderStatistics } from './tender-statistics';
import { recordOfEntity } from './tender-record';
import { presentHistory, presentTender } from './tender-visibility';
import { TenderView } from './tender.types';

const BROKER_SIDE = [Role.BROKER, Role.INTERNAL];

/** The tender lifecycle (DESIGN 3): each mutation answers the tender as the caller may now see it. */
@Resolver(() => TenderView)
export class TenderLifecycleResolver {
  @Authorized(Role.INTERNAL)
  @Mutation(() => TenderView, { description: 'Creates a tender in QUOTES_AVAILABLE (the user interface\'s path).' })
  async createTender(@Arg('input', () => CreateTenderInput) input: CreateTenderInput, @Ctx() { em, viewer }: RequestContext): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderCreationService(em, viewer).create(input)), viewer);
  }

  @Authorized(...BROKER_SIDE)
  @Mutation(() => TenderView, { description: 'QUOTES_AVAILABLE or REOPENED → IN_NEGOTIATION.' })
  async startNegotiation(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { em, viewer }: RequestContext): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).startNegotiation(tenderId)), viewer);
  }

  @Authorized(...BROKER_SIDE)
  @Mutation(() => TenderView, { description: 'QUOTES_AVAILABLE, IN_NEGOTIATION or REOPENED → IN_COVERNOTE, on one option of a received quote.' })
  async orderCover(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('quoteOptionId', () => ID) quoteOptionId: string,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).orderCover(tenderId, quoteOptionId)), viewer);
  }

  @Authorized(Role.INSURER, Role.INTERNAL)
  @Mutation(() => TenderView, { description: 'IN_COVERNOTE → SUCCESSFUL, by the insurer of the ordered option.' })
  async finaliseContract(@Arg('tenderId', () => ID) tenderId: string, @Ctx() { em, viewer }: RequestContext): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).finaliseContract(tenderId)), viewer);
  }

  @Authorized(...BROKER_SIDE)
  @Mutation(() => TenderView, { description: 'Any open status → CLOSED.' })
  async closeTender(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String) reason: string,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).closeTender(tenderId, reason)), viewer);
  }

  @Authorized(...BROKER_SIDE)
  @Mutation(() => TenderView, { description: 'CLOSED → REOPENED; an earlier order to cover no longer stands.' })
  async reopenTender(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).reopenTender(tenderId, reason)), viewer);
  }

  @Authorized(Role.INSURER, Role.INTERNAL)
  @Mutation(() => TenderView, { description: 'The winning insurer confirms the policy documentation of a SUCCESSFUL tender.' })
  async confirmPolicyDocumentation(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('policyNumber', () => String) policyNumber: string,
    @Arg('confirmedAt', () => GraphQLISODateTime, { nullable: true }) confirmedAt: Date | null,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderView> {
    return presentTender(recordOfEntity(await new TenderLifecycleService(em, viewer).confirmPolicyDocumentation(tenderId, policyNumber, confirmedAt)), viewer);
  }

  @FieldResolver(() => [TenderHistoryEntryView], { description: 'Every status change, oldest first.' })
  async history(@Root() view: TenderView, @Ctx() { loaders, viewer }: RequestContext): Promise<TenderHistoryEntryView[]> {
    return presentHistory(await loaders.history.load(view.id), view.redacted, viewer);
  }

  @Authorized(Role.ANALYST, Role.INTERNAL)
  @Query(() => TenderStatistics, { description: 'Counts, quote response rates and times, premium distributions; tenders created in [from, to).' })
  tenderStatistics(
    @Arg('from', () => GraphQLISODateTime, { nullable: true }) from: Date | null,
    @Arg('to', () => GraphQLISODateTime, { nullable: true }) to: Date | null,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<TenderStatistics> {
    return tenderStatistics(em, viewer, from, to);
  }
}
