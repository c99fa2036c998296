import type { Browser, Page } from 'playwright-core';

/**
 * What the browser tests of the pages for people (the questionnaire, the underwriter's page) watch on a page: console
 * errors, CSP violations and every host it asks.
 */

/** The browser globals the functions evaluated in the page use (the tests' tsconfig has no DOM types). */
declare const document: {
  activeElement: { id: string } | null;
  addEventListener(type: 'securitypolicyviolation', listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: { violations: string[] };

export interface WatchedPage {
  page: Page;
  /** Console errors (other than the 4xx answers a page is expected to show) and uncaught page errors. */
  problems: string[];
  /** Every host the page asked something of. */
  hosts: Set<string>;
}

/** A German browser's page in a context of its own, watched from its first script on. */
export async function openWatchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 900, height: 900 } });
  const problems: string[] = [];
  const hosts = new Set<string>();
  const page = await context.newPage();
  // Generous: the page waits are for a busy CI machine's Chromium, not a measure of speed.
  page.setDefaultTimeout(20_000);
  page.on('request', (request) => hosts.add(new URL(request.url()).host));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    window.violations = [];
    document.addEventListener('securitypolicyviolation', (event) =>
      window.violations.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return { page, problems, hosts };
}

/** The CSP violations the page reported since it was opened. */
export const cspViolations = (page: Page): Promise<string[]> => page.evaluate(() => window.violations);

/** The id of the element that has the focus ('' for none). */
export const focusedId = (page: Page): Promise<string> => page.evaluate(() => document.activeElement?.id ?? '');
