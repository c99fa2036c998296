import { Field, ID, InputType } from 'type-graphql';
import type { Subjectivity } from '../quote-option.entity';
import { SubjectivityDecision, SubjectivityStatus } from '../quote-request-status';
import type { SubjectivityView } from '../quote.types';
import type { TrackedSubjectivity } from './subjectivity.entity';

@InputType('RespondToSubjectivityInput', {
  description: "The tender's broker answers a subjectivity, with documents of the tender as evidence.",
})
export class RespondToSubjectivityInput {
  @Field(() => ID)
  subjectivityId!: string;

  @Field(() => String, { description: '1 to 2000 characters.' })
  text!: string;

  @Field(() => [ID], { nullable: true, description: 'AVAILABLE documents of the tender, at most 10 (e.g. the signed application).' })
  documentIds?: string[] | null;
}

@InputType('DecideSubjectivityInput', {
  description: 'The quoting insurer accepts, rejects (asking for another response) or waives a subjectivity.',
})
export class DecideSubjectivityInput {
  @Field(() => ID)
  subjectivityId!: string;

  @Field(() => SubjectivityDecision)
  decision!: SubjectivityDecision;

  @Field(() => String, { nullable: true, description: 'Required for REJECT: what is missing. At most 1000 characters.' })
  reason?: string | null;
}

/** A tracked subjectivity as the viewer sees it: actors only where the access policy shows them. */
export function presentSubjectivity(subjectivity: TrackedSubjectivity, showActors: boolean): SubjectivityView {
  const steps = subjectivity.steps.isInitialized() ? subjectivity.steps.getItems() : [];
  return {
    id: subjectivity.id,
    text: subjectivity.text,
    stage: subjectivity.stage,
    status: subjectivity.status,
    dueAt: subjectivity.dueAt ?? null,
    quoteOptionId: subjectivity.quoteOption.id,
    insurerId: subjectivity.insurer.id,
    history: [...steps]
      .sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id))
      .map((step) => ({
        at: step.at,
        actor: showActors ? step.actor : null,
        actorRole: step.actorRole,
        kind: step.kind,
        text: step.text ?? null,
        documentIds: step.documentIds ?? [],
      })),
  };
}

/** A condition of an option stored without a tracked row (a fixture, or a row the migration did not reach): OPEN. */
export const untrackedSubjectivity = (subjectivity: Subjectivity, quoteOptionId: string): SubjectivityView => ({
  id: null,
  text: subjectivity.text,
  stage: subjectivity.stage,
  status: SubjectivityStatus.OPEN,
  dueAt: subjectivity.dueAt ? new Date(subjectivity.dueAt) : null,
  quoteOptionId,
  insurerId: null,
  history: [],
});
