import { Type } from '@sinclair/typebox';
import { Email } from '../../platform/validation/rules';

/** The longest a questionnaire link lives, and how long when the broker names no time. */
export const QUESTIONNAIRE_LINK_DAYS = { max: 30, default: 14 } as const;

/** A new questionnaire link: an optional address, a language, a lifetime of whole days. */
export const CreateQuestionnaireLinkRules = Type.Object({
  email: Type.Optional(Email),
  language: Type.Union([Type.Literal('de'), Type.Literal('en')], { description: 'de or en' }),
  expiresInDays: Type.Integer({ minimum: 1, maximum: QUESTIONNAIRE_LINK_DAYS.max }),
});
