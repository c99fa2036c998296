import { Type } from '@sinclair/typebox';
import { all as countries } from 'iso-3166-1';
import { Email, LIMITS, optionalText, requiredText } from '../platform/validation/rules';

/** The field rules of the parties a tender names (its customer's address, its submitter and person in charge). */

/**
 * The officially assigned ISO 3166-1 alpha-2 codes (iso-3166-1): not the reserved or user-assigned ones that
 * Intl knows as regions (EU, UN, QO, and XK, which some use for Kosovo but ISO has not assigned), or empty.
 */
const CountryCode = Type.String({
  pattern: `^(?:${countries()
    .map((country) => country.alpha2)
    .join('|')})?$`,
  description: 'an officially assigned ISO 3166-1 alpha-2 code such as DE, or empty',
});

/** An address as GraphQL takes it. */
export const AddressRules = Type.Object({
  street: optionalText(LIMITS.name),
  houseNumber: optionalText(LIMITS.shortText),
  zip: optionalText(LIMITS.shortText),
  city: optionalText(LIMITS.personName),
  country: CountryCode,
});

/** A person as GraphQL takes it. */
export const PersonRules = Type.Object({
  accountId: requiredText(LIMITS.code),
  email: Email,
  firstName: requiredText(LIMITS.personName),
  lastName: requiredText(LIMITS.personName),
  salutation: optionalText(LIMITS.shortText),
  language: Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en'), Type.Null()], { description: 'de or en' })),
});
