import { Type } from '@sinclair/typebox';
import { HttpUrl, LIMITS, nullable, optionalText, requiredText } from '../platform/validation/rules';

/** The field rules of an insurer the operator registers. */
export const CreateInsurerRules = Type.Object({
  name: requiredText(LIMITS.name),
  quoteApiUrl: HttpUrl,
  outboundCredential: nullable(optionalText(LIMITS.credential)),
});
