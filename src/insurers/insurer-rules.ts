import { Type } from '@sinclair/typebox';
import { HttpUrl, LIMITS, nullable, optionalText, requiredText } from '../platform/validation/rules';

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
