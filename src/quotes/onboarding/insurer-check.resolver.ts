import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { TimestampScalar } from '../../platform/validation/timestamp';
import { Allowed } from '../../access';
import type { InsurerCheckReport } from './insurer-check-run';
import type { QuoteContext } from '../quote-context';

@ObjectType('CheckedInsurer', { description: 'The insurer an onboarding check ran against.' })
class CheckedInsurerView {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'Base URL of the insurer system the check called.' })
  quoteApiUrl!: string;
}

@ObjectType('InsurerCheckStep', { description: 'One step of an onboarding check.' })
class InsurerCheckStepView {
  @Field(() => String, { description: 'acknowledgement, callback, quote, idempotency or duplicate-callback.' })
  name!: string;

  @Field(() => Boolean)
  passed!: boolean;

  @Field(() => Boolean, { description: 'Not run because an earlier step it needs failed (passed is then false).' })
  skipped!: boolean;

  @Field(() => Int, { description: 'How long the step took, ms.' })
  ms!: number;

  @Field(() => String, { description: 'What was seen, or why the step failed.' })
  detail!: string;
}

@ObjectType('InsurerCheckReport', {
  description: 'The result of an onboarding check: a real quote exchange on a test request no one else sees.',
})
class InsurerCheckReportView {
  @Field(() => CheckedInsurerView)
  insurer!: CheckedInsurerView;

  @Field(() => Boolean, { description: 'Every step passed.' })
  passed!: boolean;

  @Field(() => TimestampScalar)
  startedAt!: Date;

  @Field(() => Int)
  totalMs!: number;

  @Field(() => [InsurerCheckStepView])
  steps!: InsurerCheckStepView[];
}

@Resolver()
export class InsurerCheckResolver {
  @Allowed('checkInsurer')
  @Mutation(() => InsurerCheckReportView, {
    description:
      'Runs an onboarding check against a registered insurer system: a real quote exchange (acknowledgement, callback, quote fetch, ' +
      'idempotency, duplicate callback) on a test request that belongs to no tender. waitMs: how long to wait for the callback; ' +
      'at most what fits in the request timeout.',
  })
  async checkInsurer(
    @Arg('insurerId', () => ID) insurerId: string,
    @Arg('waitMs', () => Int, { nullable: true }) waitMs: number | null,
    @Ctx() { em, insurerChecks, signal }: QuoteContext,
  ): Promise<InsurerCheckReportView> {
    const wait = waitMs === null || waitMs === undefined ? insurerChecks.defaultWaitMs : insurerChecks.checkWait(waitMs);
    const insurer = await insurerChecks.findInsurer(em, insurerId, { byName: false });
    // The check ends with its request: after the 503 of REQUEST_TIMEOUT_MS nobody reads its report.
    const report: InsurerCheckReport = await insurerChecks.run(em, insurer, { waitMs: wait, signal });
    return { ...report, startedAt: new Date(report.startedAt) };
  }
}
