import cyber from './question-sets/cyber.json';
import directorsAndOfficers from './question-sets/directors-and-officers.json';
import property from './question-sets/property.json';

/** A question set of the demo data: a JSON Schema (2020-12) for the products of one line of business. */
export interface DemoQuestionSet {
  lineOfBusiness: string;
  schema: Record<string, unknown>;
}

/** Frozen, so that nothing that publishes or compiles a set can change the demo's for the next caller. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

// JSON imports (resolveJsonModule): tsc copies the files into dist/ beside this module, tsx reads them from src/.
export const DEMO_QUESTION_SETS: readonly DemoQuestionSet[] = deepFreeze([cyber, directorsAndOfficers, property]);

type Answers = Record<string, unknown>;
type Random = () => number;

/** The spec's risk_information fields every simulated insurer prices on. */
const SPEC_FIELDS = ['/turnover', '/type_of_business'];

/**
 * What each of the simulated insurers (the seed's eight, by index) requires beyond the spec's fields. Pointers name
 * questions every demo answer holds: a conditional question (e.g. `/prior_losses_description`) would count as missing
 * whenever its condition is not met, and an item of a repeatable group is never named on its own.
 */
const EXTRA_REQUIREMENTS: Record<string, string[][]> = {
  Cyber: [
    ['/employees', '/website_url', '/it_security/mfa', '/it_security/offline_backups', '/it_security/edr', '/prior_losses'],
    ['/employees', '/it_security/mfa', '/it_security/offline_backups', '/it_security/patching_cadence', '/payment_card_data'],
    ['/website_url', '/it_security', '/data_records', '/prior_losses'],
    ['/employees', '/prior_losses'],
    ['/it_security/mfa', '/it_security/security_training', '/payment_card_data', '/prior_losses'],
    ['/employees', '/website_url', '/it_security', '/payment_card_data', '/prior_losses'],
    ['/it_security/mfa', '/it_security/edr', '/it_security/patching_cadence'],
    ['/employees', '/data_records', '/it_security/offline_backups', '/it_security/incident_response_plan'],
  ],
  'D&O': [
    ['/listed_company', '/balance_sheet', '/us_subsidiaries', '/insolvency_proceedings'],
    ['/employees', '/legal_form', '/balance_sheet/total_assets', '/balance_sheet/equity', '/insolvency_proceedings'],
    ['/listed_company', '/us_subsidiaries', '/officers', '/prior_losses'],
    ['/legal_form', '/balance_sheet/net_result', '/insolvency_proceedings', '/prior_losses'],
    ['/listed_company', '/balance_sheet'],
    ['/employees', '/us_subsidiaries', '/insolvency_proceedings', '/prior_losses'],
    ['/legal_form', '/listed_company', '/balance_sheet/fiscal_year_end', '/balance_sheet/total_assets', '/officers'],
    ['/balance_sheet/equity', '/balance_sheet/net_result', '/us_subsidiaries', '/insolvency_proceedings', '/prior_losses'],
  ],
  Property: [
    ['/locations', '/hazardous_materials', '/prior_losses'],
    ['/locations', '/gross_profit', '/indemnity_period_months'],
    ['/employees', '/locations', '/prior_losses'],
    ['/locations', '/hazardous_materials'],
    ['/locations', '/gross_profit', '/prior_losses'],
    ['/employees', '/locations', '/hazardous_materials', '/prior_losses'],
    ['/locations', '/gross_profit', '/indemnity_period_months', '/hazardous_materials'],
    ['/employees', '/locations'],
  ],
};

function unknownLine(lineOfBusiness: string): Error {
  return new Error(
    `No demo question set for the line of business "${lineOfBusiness}"; there are: ${Object.keys(EXTRA_REQUIREMENTS).join(', ')}`,
  );
}

/**
 * The questions (JSON pointers into the answers) the simulated insurer at `insurerIndex` requires for products of
 * `lineOfBusiness`: always the spec's `/turnover` and `/type_of_business`, then a subset of its own. An index past
 * the eighth starts again at the first. Throws for a line without a demo question set.
 */
export function demoRequirements(insurerIndex: number, lineOfBusiness: string): string[] {
  const profiles = EXTRA_REQUIREMENTS[lineOfBusiness];
  if (!profiles) throw unknownLine(lineOfBusiness);
  if (!Number.isInteger(insurerIndex) || insurerIndex < 0) throw new RangeError(`An insurer index is an integer >= 0, not ${insurerIndex}`);
  return [...SPEC_FIELDS, ...profiles[insurerIndex % profiles.length]];
}

const pick = <T>(random: Random, values: readonly T[]): T => values[Math.floor(random() * values.length)];
const chance = (random: Random, probability: number) => random() < probability;
/** A whole number in [min, max], rounded down to a multiple of `step`. */
const amount = (random: Random, min: number, max: number, step = 1) => Math.floor((min + random() * (max - min)) / step) * step;

const PEOPLE = [
  ['Anna', 'Schneider'],
  ['Jonas', 'Weber'],
  ['Leonie', 'Fischer'],
  ['Mehmet', 'Yılmaz'],
  ['Sophie', 'Müller'],
  ['Lukas', 'Hoffmann'],
  ['Marie', 'Becker'],
  ['Felix', 'Schäfer'],
];

/** A German address, or now and then an Austrian or Swiss one. */
const PLACES = [
  { zip: '20095', city: 'Hamburg', country: 'DE', street: 'Mönckebergstraße' },
  { zip: '80331', city: 'München', country: 'DE', street: 'Sendlinger Straße' },
  { zip: '50667', city: 'Köln', country: 'DE', street: 'Hohe Straße' },
  { zip: '60311', city: 'Frankfurt am Main', country: 'DE', street: 'Berliner Straße' },
  { zip: '70173', city: 'Stuttgart', country: 'DE', street: 'Königstraße' },
  { zip: '04109', city: 'Leipzig', country: 'DE', street: 'Grimmaische Straße' },
  { zip: '90403', city: 'Nürnberg', country: 'DE', street: 'Königstraße' },
  { zip: '28195', city: 'Bremen', country: 'DE', street: 'Obernstraße' },
  { zip: '1010', city: 'Wien', country: 'AT', street: 'Kärntner Straße' },
  { zip: '8001', city: 'Zürich', country: 'CH', street: 'Bahnhofstrasse' },
];

const INSURERS = [
  'Allianz Versicherungs-AG',
  'AXA Versicherung AG',
  'HDI Global SE',
  'R+V Allgemeine Versicherung AG',
  'Zurich Insurance plc',
];

/** The ASCII of a name for a mail address: umlauts spelled out, anything else dropped. */
function ascii(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/ı/g, 'i')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** What the answers of a line's customers look like where every set asks the same. */
interface Customers {
  /** A business of the line and the domain of its website and mail. */
  businesses: readonly (readonly [business: string, domain: string])[];
  turnover: readonly [min: number, max: number];
  losses: readonly string[];
}

/** The answers every set shares: the spec's fields, the head count, prior losses, current cover and the contact. */
function commonAnswers(random: Random, customers: Customers): { answers: Answers; turnover: number } {
  const [business, domain] = pick(random, customers.businesses);
  const turnover = amount(random, customers.turnover[0], customers.turnover[1], 10_000);
  const [firstName, lastName] = pick(random, PEOPLE);
  const answers: Answers = {
    type_of_business: business,
    turnover: { amount: turnover, currency: chance(random, 0.9) ? 'EUR' : pick(random, ['CHF', 'USD', 'GBP']) },
    website_url: `https://www.${domain}/`,
    employees: Math.max(1, Math.round(turnover / amount(random, 90_000, 250_000))),
    contact_person: {
      name: `${firstName} ${lastName}`,
      email: `${ascii(firstName)}.${ascii(lastName)}@${domain}`,
      ...(chance(random, 0.6) && { phone: `+49 ${amount(random, 30, 999)} ${amount(random, 100_000, 9_999_999)}` }),
    },
    prior_losses: chance(random, 0.3),
  };
  if (answers.prior_losses) {
    answers.prior_losses_description = pick(random, customers.losses);
    answers.prior_losses_amount = amount(random, 2_000, Math.max(5_000, turnover / 20), 500);
  }
  if (chance(random, 0.7)) {
    answers.current_insurer = pick(random, INSURERS);
    answers.current_policy_expiry = `${new Date().getUTCFullYear() + 1}-01-01`;
  }
  return { answers, turnover };
}

function cyberAnswers(random: Random): Answers {
  const { answers, turnover } = commonAnswers(random, {
    businesses: [
      ['Onlinehandel mit Sportartikeln', 'hansen-sportversand.example'],
      ['IT-Dienstleistungen für den Mittelstand', 'nordlicht-it.example'],
      ['Steuerberatungskanzlei', 'kleinschmidt-steuerberatung.example'],
      ['Software für Arztpraxen', 'medicus-software.example'],
    ],
    turnover: [500_000, 150_000_000],
    losses: [
      'Ransomware-Angriff auf den Dateiserver, zwei Tage Betriebsunterbrechung; seitdem Offline-Sicherungen und MFA.',
      'Gefälschte Zahlungsanweisung per E-Mail (CEO-Betrug); seitdem Freigabe von Überweisungen nur im Vier-Augen-Prinzip.',
    ],
  });
  // One maturity drives the measures: a company with EDR rarely lacks MFA.
  const maturity = random();
  const cardData = chance(random, 0.3);
  return {
    ...answers,
    data_records: amount(random, 500, Math.max(1_000, turnover / 50), 100),
    it_security: {
      mfa: maturity > 0.2,
      offline_backups: maturity > 0.3,
      edr: maturity > 0.5,
      patching_cadence:
        maturity > 0.7 ? 'within_72_hours' : maturity > 0.4 ? 'within_14_days' : pick(random, ['within_30_days', 'over_30_days']),
      security_training: maturity > 0.35,
      incident_response_plan: maturity > 0.6,
    },
    payment_card_data: cardData,
    ...(cardData && { pci_dss_compliant: chance(random, 0.8) }),
  };
}

function directorsAndOfficersAnswers(random: Random): Answers {
  const { answers, turnover } = commonAnswers(random, {
    businesses: [
      ['Entwicklung von Medizinsoftware', 'medicus-software.example'],
      ['Maschinenbau', 'weissenfels-maschinenbau.example'],
      ['Großhandel mit Lebensmitteln', 'rheinland-frischkost.example'],
      ['Projektentwicklung Gewerbeimmobilien', 'alpenblick-projekt.example'],
    ],
    turnover: [1_000_000, 500_000_000],
    losses: [
      'Ein Gesellschafter macht Schadenersatz wegen einer verlustreichen Unternehmensbeteiligung geltend; das Verfahren läuft.',
      'Der Insolvenzverwalter eines Kunden fordert Zahlungen aus den letzten drei Jahren zurück und nimmt die Geschäftsführung in Anspruch.',
    ],
  });
  if (chance(random, 0.2)) delete answers.website_url;
  const listed = chance(random, 0.15);
  const usSubsidiaries = chance(random, 0.2);
  const insolvency = chance(random, 0.05);
  const totalAssets = amount(random, turnover * 0.5, turnover * 1.5, 10_000);
  const equity = chance(random, 0.05)
    ? -amount(random, 10_000, totalAssets * 0.1, 10_000)
    : amount(random, totalAssets * 0.1, totalAssets * 0.5, 10_000);
  const officers = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, index) => {
    const [firstName, lastName] = pick(random, PEOPLE);
    return {
      name: `${firstName} ${lastName}`,
      position: index === 0 ? 'managing_director' : pick(random, ['managing_director', 'supervisory_board', 'authorised_officer']),
    };
  });
  return {
    ...answers,
    legal_form: listed ? pick(random, ['AG', 'SE']) : pick(random, ['GmbH', 'GmbH', 'GmbH & Co. KG', 'AG', 'UG (haftungsbeschränkt)']),
    listed_company: listed,
    ...(listed && { stock_exchange: pick(random, ['Frankfurt, Prime Standard', 'Frankfurt, General Standard', 'München, m:access']) }),
    balance_sheet: {
      fiscal_year_end: `${new Date().getUTCFullYear() - 1}-12-31`,
      total_assets: totalAssets,
      equity,
      net_result: amount(random, -turnover * 0.05, turnover * 0.1, 1_000),
    },
    us_subsidiaries: usSubsidiaries,
    ...(usSubsidiaries && { us_subsidiaries_count: 1 + Math.floor(random() * 3) }),
    insolvency_proceedings: insolvency,
    ...(insolvency && {
      insolvency_details:
        'Insolvenzantrag einer Tochtergesellschaft im Vorjahr, Verfahren in Eigenverwaltung; die Muttergesellschaft ist nicht betroffen.',
    }),
    officers,
  };
}

function propertyAnswers(random: Random): Answers {
  const { answers, turnover } = commonAnswers(random, {
    businesses: [
      ['Metallverarbeitung mit Lackiererei', 'weissenfels-metall.example'],
      ['Lager und Logistik für Haushaltswaren', 'hansen-logistik.example'],
      ['Bäckerei mit drei Filialen', 'baeckerei-oezdemir.example'],
      ['Hotel mit Restaurant', 'alpenblick-hotel.example'],
    ],
    turnover: [1_000_000, 100_000_000],
    losses: [
      'Brand in der Lackiererei, Produktionsausfall von drei Wochen; seitdem Funkenerkennung in der Absaugung.',
      'Leitungswasserschaden im Lager nach Frost; die Leitungen sind seitdem gedämmt.',
    ],
  });
  if (chance(random, 0.3)) delete answers.website_url;
  const locations = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
    const place = pick(random, PLACES);
    const sprinkler = chance(random, 0.3);
    return {
      street: `${place.street} ${amount(random, 1, 120)}`,
      zip: place.zip,
      city: place.city,
      country: place.country,
      building_value: chance(random, 0.2) ? 0 : amount(random, 500_000, 20_000_000, 10_000),
      contents_value: amount(random, 100_000, 10_000_000, 10_000),
      construction: pick(random, ['solid', 'solid', 'mixed', 'combustible']),
      sprinkler,
      ...(sprinkler && { sprinkler_vds_approved: chance(random, 0.8) }),
      ...(place.country === 'DE' && { zuers_zone: pick(random, [1, 1, 1, 2, 2, 3, 4]) }),
    };
  });
  return {
    ...answers,
    locations,
    hazardous_materials: chance(random, 0.25),
    gross_profit: amount(random, turnover * 0.2, turnover * 0.4, 10_000),
    indemnity_period_months: pick(random, [12, 12, 18, 24]),
  };
}

const ANSWERS: Record<string, (random: Random) => Answers> = {
  Cyber: cyberAnswers,
  'D&O': directorsAndOfficersAnswers,
  Property: propertyAnswers,
};

/**
 * Realistic answers to the whole question set of `lineOfBusiness`, varied by `random` (values in [0, 1), e.g. the
 * seed's generator): valid against the set, and holding every question any simulated insurer requires. Throws for a
 * line without a demo question set.
 */
export function demoAnswers(lineOfBusiness: string, random: () => number): Record<string, unknown> {
  const answer = ANSWERS[lineOfBusiness];
  if (!answer) throw unknownLine(lineOfBusiness);
  return answer(random);
}
