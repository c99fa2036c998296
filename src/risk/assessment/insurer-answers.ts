import { pickAnswers } from '../question-sets/answers-projection';

/**
 * The answers that map onto the specification's own risk_information fields (turnover, type_of_business,
 * website_url; customer_name comes from the tender's customer). Every quotation request carries them, so every
 * insurer requires them: an insurer that implements only the specification expects them.
 */
const SPEC_ANSWER_POINTERS: readonly string[] = ['/turnover', '/type_of_business', '/website_url'];

/** What an insurer receives and sees of the answers: the specification's fields and the questions it requires. */
export const answersForInsurer = (answers: Record<string, unknown>, required: readonly string[]): Record<string, unknown> =>
  pickAnswers(answers, [...SPEC_ANSWER_POINTERS, ...required]);
