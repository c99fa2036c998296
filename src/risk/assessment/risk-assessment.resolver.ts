import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { Allowed, assertMay, recordRead, Role, sees, type RequestContext, type Viewer } from '../../access';
import { badInput, forbidden } from '../../platform/errors/domain-error';
import { rowsOfJson } from '../../platform/db/row-budget';
import { JSONObjectScalar } from '../../platform/validation/json';
import { TenderView } from '../../tenders';
import type { RiskContext } from '../risk-context';
import { escapePointer } from '../question-sets/question-set-format';
import { insurerNeeds } from './insurer-missing-answers';
import { answersForInsurer } from './insurer-answers';
import { requiredPointers } from '../requirements/insurer-requirements.service';
import { RiskAssessment } from './risk-assessment.entity';
import { RiskAssessmentService } from './risk-assessment.service';
import { AnswerSource } from './risk-assessment-status';
import { RiskAssessmentView } from './risk-assessment.types';

const answersBytes = (assessment: RiskAssessment): number => Buffer.byteLength(JSON.stringify(assessment.answers));

/** The assessments of the tenders an operation shows, in one statement; counted by their answers' size. */
const createAssessmentLoader = ({ em, rows }: RequestContext) =>
  new DataLoader<string, RiskAssessment | null>(
    async (tenderIds) => {
      const found = await rows.read(
        () => em.find(RiskAssessment, { tender: { $in: [...tenderIds] } }),
        (assessments) => assessments.reduce((sum, assessment) => sum + rowsOfJson(answersBytes(assessment)), 0),
      );
      const byTender = new Map(found.map((assessment) => [assessment.tender.id, assessment]));
      return tenderIds.map((id) => byTender.get(id) ?? null);
    },
    { maxBatchSize: 500 },
  );
const assessmentLoader = (context: RequestContext) => context.once(createAssessmentLoader);

/** The assessment as `viewer` may see it: whole, an insurer's required answers only, or nothing. */
async function assessmentView(
  context: RequestContext,
  assessment: RiskAssessment,
  shown: { redacted: boolean },
): Promise<RiskAssessmentView | null> {
  const { viewer } = context;
  const audience = sees.riskAnswers(viewer);
  if (audience === 'none' || (audience === 'required' && shown.redacted)) return null;
  const required =
    audience === 'required' ? await requiredPointers(context.em, viewer.insurerId!, assessment.product, context.clock.now()) : undefined;
  const answers = required ? answersForInsurer(assessment.answers, required) : assessment.answers;
  const shownPointers = new Set(Object.keys(answers).map((key) => `/${escapePointer(key)}`));
  return {
    tenderId: assessment.tender.id,
    questionSet: { product: assessment.product, version: assessment.questionSetVersion },
    answers,
    sources: assessment.sources
      .filter((record) => shownPointers.has(record.pointer))
      .map((record) => ({ ...record, by: sees.actors(viewer) ? record.by : null, at: new Date(record.at) })),
    status: assessment.status,
    version: assessment.version,
    submittedAt: assessment.submittedAt ?? null,
    updatedAt: assessment.updatedAt,
    whole: assessment.answers,
  };
}

const mayAskMissingFor = (viewer: Viewer, insurerId: string) => viewer.role !== Role.INSURER || viewer.insurerId === insurerId;

@Resolver(() => TenderView)
export class TenderRiskAssessmentResolver {
  @FieldResolver(() => RiskAssessmentView, {
    nullable: true,
    description: 'The risk assessment: null when none was saved, or this viewer may not see it (docs/risk-assessment.md).',
  })
  async riskAssessment(@Root() tender: TenderView, @Ctx() context: RequestContext): Promise<RiskAssessmentView | null> {
    if (sees.riskAnswers(context.viewer) === 'none') return null;
    const assessment = await assessmentLoader(context).load(tender.id);
    if (!assessment) return null;
    const view = await assessmentView(context, assessment, tender);
    // The customer's answers (its personal ones among them): a read of its personal data.
    if (view) recordRead(context, tender.id, 'Tender.riskAssessment');
    return view;
  }
}

@Resolver(() => RiskAssessmentView)
export class RiskAssessmentResolver {
  @FieldResolver(() => [String], { description: 'The questions the insurer requires that are not answered (an insurer: its own only).' })
  async missing(
    @Root() view: RiskAssessmentView,
    @Arg('insurerId', () => ID) insurerId: string,
    @Ctx() { em, viewer, clock }: RequestContext,
  ): Promise<string[]> {
    if (!mayAskMissingFor(viewer, insurerId)) throw forbidden('An insurer asks what is missing for itself only');
    const { product, version } = view.questionSet;
    return (await insurerNeeds(em, { product, questionSetVersion: version, answers: view.whole }, insurerId, clock.now())).missing;
  }

  @Allowed('saveRiskAnswers')
  @Mutation(() => RiskAssessmentView, {
    description:
      "Saves the tender's risk answers whole: a draft, or with `submit` checked against the whole question set. CONFLICT when expectedVersion is stale.",
  })
  async saveRiskAnswers(
    @Arg('tenderId', () => ID) tenderId: string,
    @Arg('answers', () => JSONObjectScalar) answers: Record<string, unknown>,
    @Arg('expectedVersion', () => Int, { description: 'The version read; 0 before the first save.' }) expectedVersion: number,
    @Arg('submit', () => Boolean, { nullable: true }) submit: boolean | undefined,
    @Arg('source', () => AnswerSource, { nullable: true, description: 'BROKER (the default) or CUSTOMER: whose answers these are.' })
    source: AnswerSource | undefined,
    @Arg('confirm', () => [String], {
      nullable: true,
      description:
        "Pointers (`/revenue`) of carried-over answers (a renewal's, CARRIED_OVER) confirmed as they stand: each takes this save's source.",
    })
    confirm: string[] | undefined,
    @Ctx() context: RiskContext,
  ): Promise<RiskAssessmentView> {
    assertMay(context.viewer, 'saveRiskAnswers');
    if (source === AnswerSource.CARRIED_OVER)
      throw badInput('The source is invalid', [{ parameter: 'source', message: 'BROKER or CUSTOMER' }]);
    const service = new RiskAssessmentService(context.em, context.viewer, context.riskEvents);
    const assessment = await service.save({ tenderId, answers, expectedVersion, submit, source, confirm }, context.clock.now());
    // A submission may have released quote requests that waited for its answers: the dispatcher sends them now.
    if (submit) context.wakeDispatcher();
    // The answer shows the customer's answers (its broker or an internal user saved them): recorded like a read.
    recordRead(context, tenderId, 'saveRiskAnswers');
    return (await assessmentView(context, assessment, { redacted: false }))!;
  }
}
