import { Type } from '@sinclair/typebox';
import { LIMITS, requiredMultiLineText } from '../../platform/validation/rules';

/** A message as posted: the gateway's text rule for several lines, and a short list of document ids. */
export const PostMessageRules = Type.Object({
  text: requiredMultiLineText(LIMITS.messageText),
  documentIds: Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.reference }), {
    maxItems: LIMITS.documentsPerMessage,
    uniqueItems: true,
  }),
});
