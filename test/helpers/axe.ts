import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * axe-core's serious and critical violations of the page as it stands, one line each (rule, impact, the elements'
 * selectors), so a failing test names what to fix. axe runs through `page.evaluate`, which the pages' CSP allows:
 * no script element is injected. WCAG 2.1 A and AA rules and axe's best practices.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
