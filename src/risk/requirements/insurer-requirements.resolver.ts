import { Arg, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { TimestampScalar } from '../../platform/validation/timestamp';
import type { InsurerRequirement } from './insurer-requirement.entity';
import { InsurerRequirementsService, type RequirementsOfInsurer } from './insurer-requirements.service';

@ObjectType('InsurerRequirement', { simpleResolvers: true, description: 'The questions of a product an insurer prices on, from a date.' })
class InsurerRequirementView {
  @Field(() => ID)
  insurerId!: string;

  @Field(() => String)
  product!: string;

  @Field(() => [String], { description: 'JSON pointers into the answers (`/employees`, `/locations`).' })
  questionPointers!: string[];

  @Field(() => TimestampScalar)
  effectiveFrom!: Date;

  @Field(() => TimestampScalar)
  setAt!: Date;
}

@ObjectType('InsurerRequirements', { simpleResolvers: true })
class InsurerRequirementsView {
  @Field(() => InsurerRequirementView, { nullable: true, description: 'In effect now; none when the insurer has set none.' })
  current!: InsurerRequirementView | null;

  @Field(() => [InsurerRequirementView], { description: 'Taking effect later, soonest first.' })
  scheduled!: InsurerRequirementView[];
}

const viewOf = (requirement: InsurerRequirement): InsurerRequirementView => ({
  insurerId: requirement.insurer.id,
  product: requirement.product,
  questionPointers: requirement.pointers,
  effectiveFrom: requirement.effectiveFrom,
  setAt: requirement.setAt,
});

const viewsOf = ({ current, scheduled }: RequirementsOfInsurer): InsurerRequirementsView => ({
  current: current && viewOf(current),
  scheduled: scheduled.map(viewOf),
});

@Resolver()
export class InsurerRequirementsResolver {
  @Allowed('insurerRequirements')
  @Query(() => InsurerRequirementsView, {
    description: "An insurer's requirements of a product, current and scheduled (an insurer: its own).",
  })
  async insurerRequirements(
    @Arg('insurerId', () => ID) insurerId: string,
    @Arg('product', () => String) product: string,
    @Ctx() { em, viewer, clock }: RequestContext,
  ): Promise<InsurerRequirementsView> {
    return viewsOf(await new InsurerRequirementsService(em, viewer).of(insurerId, product, clock.now()));
  }

  @Allowed('setInsurerRequirements')
  @Mutation(() => InsurerRequirementsView, {
    description: "Which questions an insurer prices on, from `effectiveFrom` (an insurer's own client: at least 14 days ahead).",
  })
  async setInsurerRequirements(
    @Arg('insurerId', () => ID) insurerId: string,
    @Arg('product', () => String) product: string,
    @Arg('questionPointers', () => [String]) questionPointers: string[],
    @Arg('effectiveFrom', () => TimestampScalar) effectiveFrom: Date,
    @Ctx() { em, viewer, clock }: RequestContext,
  ): Promise<InsurerRequirementsView> {
    const input = { insurerId, product, questionPointers, effectiveFrom };
    return viewsOf(await new InsurerRequirementsService(em, viewer).set(input, clock.now()));
  }
}
