import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '../src/access';
import { seriousViolations } from './helpers/axe';
import { launchBrowser } from './helpers/browser';
import { cspViolations, focusedId, openWatchedPage, type WatchedPage } from './helpers/pages-browser';
import { createTender, createWorld, type World } from './helpers/fixtures';
import { graphql, startGateway, tokenFor, type Gateway } from './helpers/gateway';
import { cyberQuestionSet } from './helpers/question-sets';

/**
 * Issue 40: the customer fills in the questionnaire in Chromium, partly by keyboard alone, with a conditional question
 * and a repeated group, submits, and the broker reads the answers over REST. `QUESTIONNAIRE_SCREENSHOT=<file>` also
 * saves the German form as the docs show it (docs/images/questionnaire-de.png).
 *
 * axe-core checks the form, its error state, the summary and the page of a revoked link (no serious or critical
 * violation); beside it, what a person would check: every field found by its label, the error summary focused and
 * linked to its fields, visible focus, no CSP violation, no request to another host.
 */

let gateway: Gateway;
let world: World;
let browser: Browser | undefined;

beforeAll(async () => {
  gateway = await startGateway();
  world = await createWorld(gateway.em());
  const internal = await tokenFor(gateway, Role.INTERNAL);
  const published = await graphql(
    gateway,
    internal,
    'mutation($input: PublishQuestionSetInput!) { publishQuestionSet(input: $input) { questionSet { version } } }',
    { input: { product: 'Cyber Protect', lineOfBusinessId: world.lines.cyber.id, schema: cyberQuestionSet() } },
  );
  expect(published.body.errors).toBeUndefined();
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

async function newLink(broker: string): Promise<{ id: string; url: string; tenderId: string }> {
  const tender = await createTender(gateway.em(), world);
  const { body } = await graphql(
    gateway,
    broker,
    'mutation($input: CreateQuestionnaireLinkInput!) { createQuestionnaireLink(input: $input) { id url } }',
    { input: { tenderId: tender.id, language: 'de' } },
  );
  expect(body.errors).toBeUndefined();
  return { ...body.data.createQuestionnaireLink, tenderId: tender.id };
}

/** A German browser's page that records console errors, CSP violations and every host it asks. */
async function openPage(): Promise<WatchedPage> {
  browser ??= await launchBrowser();
  return openWatchedPage(browser);
}

describe('the questionnaire in Chromium', () => {
  it('is filled in by keyboard, with a conditional question and a repeated group, submitted, and read by the broker', async () => {
    const broker = await tokenFor(gateway, Role.BROKER, { brokerCompanyId: world.brokers[0].id });
    const link = await newLink(broker);
    const { page, problems, hosts } = await openPage();
    await page.goto(link.url);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('de');

    // The conditional question hides (the script) until its condition holds; without the script it shows, with its hint.
    const description = page.getByLabel('Was ist passiert');
    expect(await description.isVisible()).toBe(false);
    expect(await seriousViolations(page)).toEqual([]);

    // By keyboard: the first field, Tab on to the next ones; Space picks a yes/no answer.
    await page.getByLabel('Betrag').focus();
    await page.keyboard.type('5000000');
    await page.keyboard.press('Tab');
    expect(await focusedId(page)).toBe('q-turnover-currency');
    await page.getByLabel('Währung').selectOption('EUR');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Software');
    await page.keyboard.press('Tab');
    await page.keyboard.type('42');
    await page.getByRole('group', { name: 'Vorfall in den letzten fünf Jahren (optional)' }).getByLabel('Ja').focus();
    await page.keyboard.press('Space');
    await description.waitFor({ state: 'visible' });
    await description.focus();
    await page.keyboard.type('Phishing im Jahr 2024');

    // Enter in a field saves the draft (the form's default action), and the page comes back with it.
    await page.getByLabel('E-Mail der Ansprechperson (optional)').focus();
    await page.keyboard.type('it@acme.example');
    await page.keyboard.press('Enter');
    await page.getByText('Ihr Entwurf ist gespeichert.').waitFor();
    expect(await page.getByLabel('Art des Geschäfts').inputValue()).toBe('Software');

    // A repeated group: "add another" by keyboard, twice, each item filled in.
    await page.getByRole('button', { name: 'Weitere hinzufügen: Standorte' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('group', { name: 'Eintrag 1' }).waitFor();
    expect(page.url()).toContain('#q-locations-0');
    await page.getByRole('group', { name: 'Eintrag 1' }).getByLabel('Ort').fill('Berlin');
    await page.getByRole('button', { name: 'Weitere hinzufügen: Standorte' }).press('Enter');
    await page.getByRole('group', { name: 'Eintrag 2' }).waitFor();
    expect(await page.getByRole('group', { name: 'Eintrag 1' }).getByLabel('Ort').inputValue()).toBe('Berlin');
    await page.getByRole('group', { name: 'Eintrag 2' }).getByLabel('Ort').fill('Köln');
    await page.getByRole('group', { name: 'Eintrag 2' }).getByLabel('Gebäudewert (optional)').fill('2000000');

    if (process.env.QUESTIONNAIRE_SCREENSHOT) {
      mkdirSync(dirname(process.env.QUESTIONNAIRE_SCREENSHOT), { recursive: true });
      await page.screenshot({ path: process.env.QUESTIONNAIRE_SCREENSHOT, fullPage: true });
    }

    // An error: the summary takes the focus and links to the field, which says what is wrong.
    await page.getByLabel('Beschäftigte').fill('viele');
    await page.getByRole('button', { name: 'Antworten absenden' }).press('Enter');
    await page.locator('#error-summary').waitFor();
    expect(await focusedId(page)).toBe('error-summary');
    await page.locator('#error-summary a[href="#q-employees"]').click();
    expect(await focusedId(page)).toBe('q-employees');
    expect(await page.getByLabel('Beschäftigte').getAttribute('aria-describedby')).toBe('q-employees-error');
    expect(await page.locator('#q-employees-error').innerText()).toBe('Bitte eine ganze Zahl eingeben.');
    expect(await seriousViolations(page)).toEqual([]);
    // A field's focus is visible: an outline of its own.
    expect(
      await page
        .getByLabel('Beschäftigte')
        .evaluate(
          (element) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string } }).getComputedStyle(element).outlineStyle,
        ),
    ).toBe('solid');

    await page.getByLabel('Beschäftigte').fill('42');
    await page.getByRole('button', { name: 'Antworten absenden' }).click();
    await page.getByRole('heading', { name: 'Vielen Dank, Ihre Antworten sind eingereicht' }).waitFor();
    expect(await page.locator('main').innerText()).toContain('Phishing im Jahr 2024');
    expect(await seriousViolations(page)).toEqual([]);

    const rest = await fetch(`${gateway.url}/api/v1/tenders/${link.tenderId}/risk-assessment`, {
      headers: { authorization: `Bearer ${broker}` },
    });
    const assessment = (await rest.json()) as { status: string; answers: Record<string, unknown> };
    expect(assessment.status).toBe('SUBMITTED');
    expect(assessment.answers).toEqual({
      turnover: { amount: 5_000_000, currency: 'EUR' },
      type_of_business: 'Software',
      employees: 42,
      had_incident: true,
      incident_description: 'Phishing im Jahr 2024',
      contact_email: 'it@acme.example',
      locations: [{ city: 'Berlin' }, { city: 'Köln', building_value: 2_000_000 }],
    });

    // Revoked: the page says so, in German, with 410.
    await graphql(gateway, broker, 'mutation($id: ID!) { revokeQuestionnaireLink(id: $id) { id } }', { id: link.id });
    const gone = await page.goto(link.url);
    expect(gone?.status()).toBe(410);
    await page.getByRole('heading', { name: 'Der Link wurde zurückgezogen' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    expect(await cspViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    expect([...hosts]).toEqual([new URL(gateway.url).host]);
    // A browser, five page loads and four axe runs: more than the default 30 s on a busy machine.
  }, 120_000);
});
