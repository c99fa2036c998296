import { JSONObjectScalar } from '../platform/validation/json';
import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { TimestampScalar } from '../platform/validation/timestamp';
import { Insurer } from '../insurers';
import { LIMITS } from '../platform/validation/rules';
import {
  QuoteRequestMode,
  QuoteRequestStatus,
  QuoteSource,
  SubjectivityStage,
  SubjectivityStatus,
  SubjectivityStepKind,
} from './quote-request-status';
import { Role } from '../access';

@InputType('LimitInput')
class LimitInput {
  @Field(() => Float, { description: 'Positive.' })
  insuranceSum!: number;

  @Field(() => Float, { description: 'Non-negative, below the insurance sum.' })
  deductible!: number;
}

@InputType('MoneyInput')
class MoneyInput {
  @Field(() => Float, { description: 'Non-negative.' })
  amount!: number;

  @Field(() => String, { description: 'ISO 4217 currency code, e.g. EUR.' })
  currency!: string;
}

@InputType('RiskInformationInput', { description: 'Spec 2.3 risk_information; the fields vary by product.' })
class RiskInformationInput {
  @Field(() => MoneyInput, { nullable: true })
  turnover?: MoneyInput;

  @Field(() => String, { nullable: true })
  typeOfBusiness?: string;

  @Field(() => String, { nullable: true, description: 'An absolute http(s) URL.' })
  websiteUrl?: string;

  @Field(() => String, { nullable: true, description: "Defaults to the tender's customer name." })
  customerName?: string;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: `Further product-specific fields, sent as given (snake_case keys, at most ${LIMITS.freeJsonBytes / 1024} KiB).`,
  })
  additional?: Record<string, unknown>;
}

@InputType('RequestQuotesInput')
export class RequestQuotesInput {
  @Field(() => ID)
  tenderId!: string;

  @Field(() => [ID], { description: 'The insurers to ask; each is invited to the tender.' })
  insurerIds!: string[];

  @Field(() => [LimitInput], { description: `1 to ${LIMITS.limitsPerQuoteRequest} distinct insurance sum / deductible pairs.` })
  limits!: LimitInput[];

  @Field(() => RiskInformationInput, {
    nullable: true,
    description:
      "As the specification's risk_information. Leave it out to build each insurer's request from the tender's submitted risk assessment: the specification's fields and only the answers that insurer requires.",
  })
  riskInformation?: RiskInformationInput | null;

  @Field(() => QuoteRequestMode, { nullable: true, description: 'Without riskInformation: STRICT (the default) or FLEXIBLE.' })
  mode?: QuoteRequestMode | null;
}

@ObjectType('Limit')
class LimitView {
  @Field(() => Float)
  insuranceSum!: number;

  @Field(() => Float)
  deductible!: number;
}

@ObjectType('SubjectivityStep', { description: 'A response to a subjectivity or a decision on it (docs/lifecycle.md, "Binding").' })
export class SubjectivityStepView {
  @Field(() => TimestampScalar)
  at!: Date;

  @Field(() => String, { nullable: true, description: 'app_id of the client that took the step; withheld from insurers.' })
  actor!: string | null;

  @Field(() => Role)
  actorRole!: Role;

  @Field(() => SubjectivityStepKind)
  kind!: SubjectivityStepKind;

  @Field(() => String, { nullable: true, description: "The broker's response, or the insurer's reason." })
  text!: string | null;

  @Field(() => [ID], { description: 'Documents of the tender the response names.' })
  documentIds!: string[];
}

@ObjectType('Subjectivity', { description: 'A condition of a quote option, met before cover is bound or after.' })
export class SubjectivityView {
  @Field(() => ID, { nullable: true, description: 'Null only for a condition stored before subjectivities were tracked and not migrated.' })
  id!: string | null;

  @Field(() => String)
  text!: string;

  @Field(() => SubjectivityStage)
  stage!: SubjectivityStage;

  @Field(() => SubjectivityStatus)
  status!: SubjectivityStatus;

  @Field(() => TimestampScalar, { nullable: true, description: "When it must be met (the insurer's due_at)." })
  dueAt!: Date | null;

  @Field(() => ID, { nullable: true })
  quoteOptionId!: string | null;

  @Field(() => ID, { nullable: true, description: 'The quoting insurer, who decides on it.' })
  insurerId!: string | null;

  @Field(() => [SubjectivityStepView], { description: 'Responses and decisions, oldest first.' })
  history!: SubjectivityStepView[];
}

@ObjectType('QuoteOption')
export class QuoteOptionView {
  @Field(() => ID)
  id!: string;

  @Field(() => Float)
  insuranceSum!: number;

  @Field(() => Float)
  deductible!: number;

  @Field(() => Float, { description: 'As quoted by the insurer, without tax.' })
  premium!: number;

  @Field(() => Float, { description: 'premium × (1 + tender tax rate), rounded to cents, in the same currency.' })
  premiumWithTax!: number;

  @Field(() => String, { description: "The quote's currency (ISO 4217): premium and premiumWithTax are in it." })
  currency!: string;

  @Field(() => [SubjectivityView], { description: 'Conditions of this option; another set of them makes another offer.' })
  subjectivities!: SubjectivityView[];

  @Field(() => Boolean, { description: "The quote's validity has ended: cover cannot be ordered on it." })
  expired!: boolean;

  @Field(() => Boolean, {
    description: 'The cheapest unexpired option for its insurance sum and deductible in its currency across the proposal.',
  })
  cheapest!: boolean;

  @Field(() => Boolean, { description: 'Cover was ordered on this option.' })
  ordered!: boolean;
}

@ObjectType('QuoteRequest', { description: 'A quotation request to one insurer and what came of it.' })
export class QuoteRequestView {
  @Field(() => ID, { description: 'Also the Idempotency-Key of every delivery to the insurer.' })
  id!: string;

  @Field(() => ID)
  tenderId!: string;

  @Field(() => Insurer)
  insurer!: Insurer;

  @Field(() => QuoteRequestStatus)
  status!: QuoteRequestStatus;

  @Field(() => String, { nullable: true, description: "The insurer system's id for the request (spec 2.4)." })
  insurerReference!: string | null;

  @Field(() => [LimitView])
  limits!: LimitView[];

  @Field(() => Int, { description: 'Attempts of the current step (sending or fetching).' })
  attempts!: number;

  @Field(() => TimestampScalar, { nullable: true, description: 'When the next attempt is due, while one is.' })
  nextAttemptAt!: Date | null;

  @Field(() => String, {
    nullable: true,
    description: "Why the last attempt failed, in the gateway's fixed vocabulary (e.g. `insurer timed out`, `insurer answered 503`).",
  })
  lastError!: string | null;

  @Field(() => String, { nullable: true, description: 'Internal users only (null for others): the detail behind lastError.' })
  lastErrorDetail!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Why the request FAILED or was CANCELLED, in the gateway's fixed vocabulary (e.g. `insurer sent an invalid quote`, `tender closed`).",
  })
  failureReason!: string | null;

  @Field(() => String, { nullable: true, description: 'Internal users only (null for others): the detail behind failureReason.' })
  failureDetail!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Internal users only (null for others): what the gateway dropped from the insurer's quote (options for limits not requested).",
  })
  quoteNote!: string | null;

  @Field(() => [QuoteOptionView], { description: 'The quote options, once QUOTED (and still once EXPIRED).' })
  options!: QuoteOptionView[];

  @Field(() => TimestampScalar, { nullable: true, description: 'Until when the quote may be ordered (inclusive), when the insurer said.' })
  validUntil!: Date | null;

  @Field(() => String, {
    nullable: true,
    description: "The quote's currency (ISO 4217) once answered: as the insurer gave it, else the tender's (EUR).",
  })
  currency!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The underwriter's reason for a decline or referral: for the tender's broker, internal users and the insurer itself.",
  })
  underwriterReason!: string | null;

  @Field(() => QuoteSource, { description: 'API: the insurer system answered; MANUAL: the answer was entered through GraphQL.' })
  source!: QuoteSource;

  @Field(() => String, { nullable: true, description: 'app_id of the client that asked; withheld from insurers.' })
  requestedBy!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "MANUAL answers: app_id of the client that entered it (the insurer's own, or an internal user's); withheld from insurers.",
  })
  answeredBy!: string | null;

  @Field(() => TimestampScalar)
  createdAt!: Date;

  @Field(() => TimestampScalar)
  updatedAt!: Date;

  @Field(() => TimestampScalar, { nullable: true })
  acknowledgedAt!: Date | null;

  @Field(() => TimestampScalar, { nullable: true })
  callbackReceivedAt!: Date | null;

  @Field(() => TimestampScalar, { nullable: true })
  quotedAt!: Date | null;
}
