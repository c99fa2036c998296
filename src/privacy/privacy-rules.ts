import { Type } from '@sinclair/typebox';
import { LIMITS, Reference, requiredMultiLineText } from '../platform/validation/rules';

/** The field rules of an erasure: which customer, and why (a reference such as a ticket, never personal data). */
export const EraseCustomerRules = Type.Object({
  customerId: Reference,
  reason: requiredMultiLineText(LIMITS.reason),
});
