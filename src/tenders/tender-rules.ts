import { Type } from '@sinclair/typebox';
import { AddressRules } from '../parties';
import {
  LIMITS,
  Reference,
  Timestamp,
  nullable,
  optionalMultiLineText,
  requiredMultiLineText,
  requiredText,
} from '../platform/validation/rules';

/**
 * The field rules of a tender: its tax rate and customer in the creation input (shape/tender-fields.ts names them
 * as the fields' `input`), its status changes' reasons and policy number, its line of business.
 */

export const TaxRate = Type.Number({ minimum: 0, maximum: 1, description: 'between 0 and 1, e.g. 0.19' });

/** A tender's customer in the creation input: an existing one by id (checked by look-up), or a new one. */
export const CustomerInputRules = Type.Object({
  companyId: nullable(requiredText(LIMITS.code)),
  name: nullable(requiredText(LIMITS.name)),
  address: nullable(AddressRules),
});

export const PolicyNumber = Type.String({
  pattern: `^[\\w./-]{1,${LIMITS.policyNumber}}$`,
  description: `1 to ${LIMITS.policyNumber} letters, digits, ".", "/", "-" or "_"`,
});
/** Reasons may span lines. */
export const RequiredReason = requiredMultiLineText(LIMITS.reason);
export const OptionalReason = optionalMultiLineText(LIMITS.reason);

export const LineOfBusinessId = Type.String({ pattern: `^[\\w-]{1,${LIMITS.code}}$`, description: 'a line of business id' });

/** The REST body that confirms a tender's policy documentation (snake_case, as the specification writes it). */
export const PolicyDocumentationBody = Type.Object(
  { policy_number: PolicyNumber, confirmed_at: Type.Optional(Timestamp), document_id: Type.Optional(Reference) },
  { additionalProperties: false, description: 'a JSON object {"policy_number": "...", "confirmed_at": "...", "document_id": "..."}' },
);
