import { LIMITS } from '../../platform/validation/rules';
import { isJsonObject } from '../../platform/validation/json';
import { sanitise } from '../../platform/http/partner-client';
import { PartnerError, Reason } from './insurer-client';
import type { Limit } from '../quote-request.entity';
import type { ListedDocument } from './quote-documents';
import { readQuoteAnswer, type AnswerProblem, type AnswerRules, type QuoteAnswer } from '../quote-answer';

const invalidAcknowledgement = (detail: string) =>
  new PartnerError(Reason.invalidAcknowledgement, `malformed acknowledgement: ${detail}`, false);
const invalidQuote = (detail: string) => new PartnerError(Reason.invalidQuote, `malformed quote: ${detail}`, false);

/** Spec 2.4: `{id, status: "PROCESSING"}`; the id is stored and sent back in URLs, so it must be printable. */
export function parseAcknowledgement(body: unknown): string {
  if (!isJsonObject(body)) throw invalidAcknowledgement('not a JSON object');
  const { id, status } = body;
  if (typeof id !== 'string' || id.length === 0 || id.length > LIMITS.reference)
    throw invalidAcknowledgement(`id must be a string of 1 to ${LIMITS.reference} characters`);
  if (sanitise(id) !== id) throw invalidAcknowledgement(`id ${sanitise(JSON.stringify(id), 250)} contains control characters`);
  if (status !== 'PROCESSING')
    throw invalidAcknowledgement(`status must be PROCESSING, got ${sanitise(JSON.stringify(status) ?? 'nothing', 100)}`);
  return id;
}

/** A problem as the detail of an invalid quote says it: `option 2: premium ...`, `valid_until must ...`. */
function described({ pointer, message }: AnswerProblem): string {
  const option = /^\/quote_options\/(\d+)(?:\/(.*))?$/.exec(pointer);
  if (option) return `option ${option[1]}: ${option[2] ? `${option[2].replace(/\//g, '.')} ` : ''}${message}`;
  return pointer ? `${pointer.slice(1).replace(/\//g, '.')} ${message}` : message;
}

/**
 * Spec 2.5 for the id that was asked for, with its optional terms (quote-answer.ts): every option and term must be
 * valid, or the whole quote is refused as an invalid quote, with the first problem as the detail for internal users.
 */
export function parseQuote(body: unknown, expectedId: string, requested: readonly Limit[], rules: AnswerRules): QuoteAnswer {
  if (!isJsonObject(body)) throw invalidQuote('not a JSON object');
  if (body.id !== expectedId)
    throw invalidQuote(`id ${sanitise(JSON.stringify(body.id) ?? 'nothing', 250)} does not match the requested ${expectedId}`);
  const { problems, answer } = readQuoteAnswer(body, requested, rules);
  if (!answer) throw invalidQuote(problems.slice(0, 3).map(described).join('; '));
  return answer;
}

const invalidDocument = (detail: string) => new PartnerError(Reason.invalidDocument, `malformed documents: ${detail}`, false);

/**
 * A quote's optional `documents` (an addition to spec 2.5): at most `LIMITS.documentsPerQuote` entries of
 * `{type, filename, url, sha256}`, each a string; what each says is checked by the documents feature as it fetches it.
 */
export function parseListedDocuments(body: unknown): ListedDocument[] {
  const listed = isJsonObject(body) ? body.documents : undefined;
  if (listed === undefined || listed === null) return [];
  if (!Array.isArray(listed)) throw invalidDocument('documents must be an array');
  if (listed.length > LIMITS.documentsPerQuote) throw invalidDocument(`more than ${LIMITS.documentsPerQuote} documents`);
  return listed.map((entry: unknown, index) => {
    if (!isJsonObject(entry)) throw invalidDocument(`document ${index} is not an object`);
    const { type, filename, url, sha256 } = entry;
    for (const [name, value] of Object.entries({ type, filename, url, sha256 })) {
      if (typeof value !== 'string' || value.length === 0 || value.length > LIMITS.documentUrl)
        throw invalidDocument(`document ${index}: ${name} must be a string of 1 to ${LIMITS.documentUrl} characters`);
    }
    return { type, filename, url, sha256 } as ListedDocument;
  });
}
