/** A small cyber question set as the tests publish it: spec fields, a conditional question, a repeatable group, a personal answer. */
const label = (en: string, de: string) => ({ 'x-label': { de, en } });

export function cyberQuestionSet(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['turnover', 'type_of_business', 'employees'],
    properties: {
      turnover: {
        ...label('Turnover', 'Umsatz'),
        type: 'object',
        additionalProperties: false,
        required: ['amount', 'currency'],
        'x-order': 1,
        properties: {
          amount: { ...label('Amount', 'Betrag'), type: 'number', minimum: 0, 'x-unit': 'EUR' },
          currency: { ...label('Currency', 'Währung'), type: 'string', enum: ['EUR', 'CHF'] },
        },
      },
      type_of_business: { ...label('Type of business', 'Art des Geschäfts'), type: 'string', maxLength: 200, 'x-order': 2 },
      employees: { ...label('Employees', 'Beschäftigte'), type: 'integer', minimum: 0, maximum: 1_000_000, 'x-order': 3 },
      mfa: { ...label('Multi-factor authentication', 'Mehr-Faktor-Authentifizierung'), type: 'boolean', 'x-order': 4 },
      had_incident: { ...label('Incident in the last five years', 'Vorfall in den letzten fünf Jahren'), type: 'boolean', 'x-order': 5 },
      incident_description: { ...label('What happened', 'Was ist passiert'), type: 'string', maxLength: 2000, 'x-order': 6 },
      contact_email: {
        ...label('Contact e-mail', 'E-Mail der Ansprechperson'),
        type: 'string',
        format: 'email',
        'x-personal-data': true,
        'x-order': 7,
      },
      locations: {
        ...label('Locations', 'Standorte'),
        type: 'array',
        maxItems: 50,
        'x-order': 8,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['city'],
          properties: {
            city: { ...label('City', 'Ort'), type: 'string', maxLength: 100 },
            building_value: { ...label('Building value', 'Gebäudewert'), type: 'number', minimum: 0, 'x-unit': 'EUR' },
          },
        },
      },
    },
    if: { properties: { had_incident: { const: true } }, required: ['had_incident'] },
    then: { required: ['incident_description'] },
  };
}

/** Answers that fit `cyberQuestionSet` whole. */
export function cyberAnswers(): Record<string, unknown> {
  return {
    turnover: { amount: 5_000_000, currency: 'EUR' },
    type_of_business: 'Software',
    employees: 42,
    mfa: true,
    had_incident: false,
    contact_email: 'it@acme.example',
    locations: [{ city: 'Berlin', building_value: 2_000_000 }, { city: 'Köln' }],
  };
}
