import { Type } from '@sinclair/typebox';
import { LIMITS, requiredMultiLineText } from '../../platform/validation/rules';

/**
 * The advice an export records (§ 61 VVG), each part by the one text rule, line breaks allowed. The recommendation is
 * free text: it may name an option, an insurer or neither (a recommendation to wait), which no id could say.
 */
export const AdviceRules = Type.Object({
  wishesAndNeeds: requiredMultiLineText(LIMITS.adviceWishesAndNeeds),
  recommendation: requiredMultiLineText(LIMITS.adviceRecommendation),
  reasons: requiredMultiLineText(LIMITS.adviceReasons),
});
