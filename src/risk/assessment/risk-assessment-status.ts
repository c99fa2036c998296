import { registerEnumType } from 'type-graphql';

export enum RiskAssessmentStatus {
  /** Saved in part: the answers given are checked, missing ones are not. */
  DRAFT = 'DRAFT',
  /** Checked against the whole question set: quotes may be requested from it. */
  SUBMITTED = 'SUBMITTED',
}

/** Who gave an answer. */
export enum AnswerSource {
  /** The customer (through the broker's system or the questionnaire page). */
  CUSTOMER = 'CUSTOMER',
  /** The broker, on the customer's behalf. */
  BROKER = 'BROKER',
  /** Last year's answer, carried over to a renewal; to be confirmed. */
  CARRIED_OVER = 'CARRIED_OVER',
}

registerEnumType(RiskAssessmentStatus, { name: 'RiskAssessmentStatus' });
registerEnumType(AnswerSource, { name: 'AnswerSource' });

/** Where one answer (a top-level question's) came from, who gave it and when. */
export interface AnswerSourceRecord {
  pointer: string;
  source: AnswerSource;
  by: string;
  at: string;
}
