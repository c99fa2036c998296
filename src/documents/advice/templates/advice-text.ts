import { Eta } from 'eta';
import type { AdviceLanguage } from '../advice';
import { ADVICE_LABELS, NO_ANSWER_YET, OUTCOME_LABELS } from './advice-labels';

type Label = keyof typeof ADVICE_LABELS;

// Plain text for pdfkit: no HTML escaping (it would print "&amp;"), and the broker's line breaks kept as written.
const eta = new Eta({ autoEscape: false, autoTrim: false, useWith: false, cache: false });
const compiled = new Map<string, ReturnType<Eta['compile']>>();

function template(source: string): ReturnType<Eta['compile']> {
  let compiledTemplate = compiled.get(source);
  if (!compiledTemplate) {
    compiledTemplate = eta.compile(source);
    compiled.set(source, compiledTemplate);
  }
  return compiledTemplate;
}

/** The advice document's words in one language: `label('page', { page: 1, pages: 2 })` → "Seite 1 von 2". */
export function adviceText(language: AdviceLanguage) {
  return {
    label: (name: Label, data: Record<string, unknown> = {}): string => eta.render(template(ADVICE_LABELS[name][language]), data),
    outcome: (status: string): string => (OUTCOME_LABELS[status] ?? NO_ANSWER_YET)[language],
  };
}
