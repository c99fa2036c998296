import { Type } from '@sinclair/typebox';
import { Email, HttpUrl, LIMITS, nullable, optionalText, requiredText } from '../platform/validation/rules';

/** The field rules of an insurer the operator registers; an API insurer's quote API URL is checked with them. */
export const CreateInsurerRules = Type.Object({
  name: requiredText(LIMITS.name),
  quoteApiUrl: nullable(HttpUrl),
  outboundCredential: nullable(optionalText(LIMITS.credential)),
});

/** Changing how an insurer answers quote requests. */
export const ChangeInsurerIntegrationRules = Type.Object({
  insurerId: Type.String(),
  quoteApiUrl: nullable(HttpUrl),
  outboundCredential: nullable(optionalText(LIMITS.credential)),
});

/** At most this many contacts per insurer: the mails of one event stay few. */
const MAX_INSURER_CONTACTS = 10;

/** The people an insurer is mailed at. */
export const SetInsurerContactsRules = Type.Object({
  contacts: Type.Array(
    Type.Object({
      email: Email,
      name: requiredText(LIMITS.personName * 2),
      language: Type.Union([Type.Literal('de'), Type.Literal('en')], { description: 'de or en' }),
    }),
    { maxItems: MAX_INSURER_CONTACTS, description: `at most ${MAX_INSURER_CONTACTS} contacts` },
  ),
});
