import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/api/rest/openapi/openapi-document';
import { InsurerQuoteSchema } from '../src/quotes';

const docs = readFileSync('docs/quotation-terms.md', 'utf8');
const between = (start: string, end: string) => docs.slice(docs.indexOf(start) + start.length, docs.indexOf(end));
const documented = JSON.parse(between('<!-- insurer-quote-schema:start -->\n```json\n', '```\n<!-- insurer-quote-schema:end -->'));
const served = JSON.parse(JSON.stringify((openApiDocument as any).components.schemas.InsurerQuote));

describe('the quote an insurer integrator reads (docs/quotation-terms.md)', () => {
  it('the JSON Schema in the docs is the one the OpenAPI document serves and the gateway declares', () => {
    expect(documented).toEqual(JSON.parse(JSON.stringify(InsurerQuoteSchema)));
    expect(served).toEqual(documented);
    expect(documented.required).toEqual(['id', 'quote_options']);
  });

  it("the docs' example quote with terms and a spec-only quote both satisfy it; a decision MAYBE or a currency € do not", () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    const valid = ajv.compile(documented);
    const example = JSON.parse(
      between('`GET {insurer_base_url}/quotes/{id}` answers:\n\n```json\n', '```\n\n| field').replace('"Q-7f3c…"', '"Q-1"'),
    );
    expect(valid(example), JSON.stringify(valid.errors)).toBe(true);
    expect(valid({ id: 'Q-1', quote_options: [{ insurance_sum: 1000, deductible: 0, premium: 10 }] })).toBe(true);
    expect(valid({ id: 'Q-1', quote_options: [], decision: 'MAYBE' })).toBe(false);
    expect(valid({ id: 'Q-1', quote_options: [], currency: '€' })).toBe(false);
  });
});
