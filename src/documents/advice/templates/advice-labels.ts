/**
 * Every label and sentence of the advice PDF, German and English side by side: one table, so a label added in one
 * language and not the other is a type error. Each is an eta template (`it` is its data), the engine the mails use;
 * the PDF is no HTML, so nothing is escaped (advice-text.ts).
 */
export const ADVICE_LABELS = {
  documentTitle: {
    DE: 'Angebotsvergleich, Ausschreibung <%= it.tenderId %>',
    EN: 'Proposal comparison, tender <%= it.tenderId %>',
  },
  documentSubject: {
    DE: 'Beratungsdokumentation (§ 61 VVG): die Angebote, wie sie dem Kunden gezeigt wurden',
    EN: 'Advice record (§ 61 VVG): the offers as shown to the client',
  },
  title: { DE: 'Beratungsdokumentation und Angebotsvergleich', EN: 'Advice record and proposal comparison' },
  customer: { DE: 'Kunde: <%= it.name %>', EN: 'Customer: <%= it.name %>' },
  broker: {
    DE: 'Versicherungsmakler: <%= it.company %>, Ansprechpartner: <%= it.person %>',
    EN: 'Insurance broker: <%= it.company %>, person in charge: <%= it.person %>',
  },
  product: {
    DE: 'Produkt: <%= it.product %> (Sparte: <%= it.lineOfBusiness %>)',
    EN: 'Product: <%= it.product %> (line of business: <%= it.lineOfBusiness %>)',
  },
  asOf: { DE: 'Stand: <%= it.date %>', EN: 'As of: <%= it.date %>' },
  taxRate: { DE: 'Versicherungsteuer: <%= it.rate %>', EN: 'Insurance premium tax: <%= it.rate %>' },
  tender: { DE: 'Ausschreibung: <%= it.tenderId %>', EN: 'Tender: <%= it.tenderId %>' },
  comparisons: { DE: 'Angebote im Vergleich', EN: 'The offers compared' },
  comparison: {
    DE: 'Versicherungssumme <%= it.insuranceSum %>, Selbstbehalt <%= it.deductible %>',
    EN: 'Insurance sum <%= it.insuranceSum %>, deductible <%= it.deductible %>',
  },
  noComparison: { DE: 'Es liegt kein bestellbares Angebot vor.', EN: 'No option can be ordered.' },
  insurer: { DE: 'Versicherer', EN: 'Insurer' },
  cheapest: { DE: '<%= it.name %> (günstigstes Angebot)', EN: '<%= it.name %> (cheapest)' },
  premium: { DE: 'Prämie', EN: 'Premium' },
  tax: { DE: 'Versicherungsteuer', EN: 'Tax' },
  premiumWithTax: { DE: 'Prämie inkl. Steuer', EN: 'Premium with tax' },
  validUntil: { DE: 'Gültig bis', EN: 'Valid until' },
  subjectivities: { DE: 'Vorbehalte', EN: 'Subjectivities' },
  none: { DE: 'keine', EN: 'none' },
  subjectivity: {
    DE: '<%= it.stage === "PRE_BIND" ? "vor Deckung" : "nach Deckung" %>, <%= ({ OPEN: "offen", RESPONDED: "beantwortet", ACCEPTED: "akzeptiert", REJECTED: "abgelehnt", WAIVED: "erlassen" })[it.status] %>: <%= it.text %>',
    EN: '<%= it.stage === "PRE_BIND" ? "before binding" : "after binding" %>, <%= ({ OPEN: "open", RESPONDED: "responded", ACCEPTED: "accepted", REJECTED: "rejected", WAIVED: "waived" })[it.status] %>: <%= it.text %>',
  },
  insurers: { DE: 'Angefragte Versicherer', EN: 'Insurers asked' },
  outcome: {
    DE: '<%= it.name %>: <%= it.outcome %><% if (it.reason) { %>; Grund: <%= it.reason %><% } %>',
    EN: '<%= it.name %>: <%= it.outcome %><% if (it.reason) { %>; reason: <%= it.reason %><% } %>',
  },
  noInsurer: { DE: 'Kein Versicherer wurde um ein Angebot gebeten.', EN: 'No insurer was asked for a quote.' },
  wishesAndNeeds: { DE: 'Wünsche und Bedürfnisse des Kunden', EN: "The customer's wishes and needs" },
  recommendation: { DE: 'Unsere Empfehlung', EN: 'Our recommendation' },
  reasons: { DE: 'Begründung', EN: 'Reasons' },
  noAdvice: {
    DE: 'Diese Ausfertigung enthält den Angebotsvergleich ohne dokumentierte Beratung.',
    EN: 'This copy holds the comparison without a recorded advice.',
  },
  page: { DE: 'Seite <%= it.page %> von <%= it.pages %>', EN: 'Page <%= it.page %> of <%= it.pages %>' },
} as const;

/** What the client reads for an insurer's outcome; every state still in flight reads as "no answer yet". */
export const OUTCOME_LABELS: Record<string, { DE: string; EN: string }> = {
  QUOTED: { DE: 'Angebot abgegeben', EN: 'quoted' },
  DECLINED: { DE: 'abgelehnt', EN: 'declined' },
  REFERRED: { DE: 'an den Underwriter verwiesen', EN: 'referred to the underwriter' },
  EXPIRED: { DE: 'Angebot abgegeben, Gültigkeit abgelaufen', EN: 'quoted, validity ended' },
  FAILED: { DE: 'fehlgeschlagen', EN: 'failed' },
  CANCELLED: { DE: 'storniert', EN: 'cancelled' },
  AWAITING_MANUAL: { DE: 'noch keine Antwort (Versicherer ohne API)', EN: 'no answer yet (insurer without an API)' },
};
export const NO_ANSWER_YET = { DE: 'noch keine Antwort', EN: 'no answer yet' } as const;
