import type { Request } from 'express';
import { badInput, type FieldProblem } from '../../../platform/errors/domain-error';
import { LineOfBusinessId, PolicyDocumentationBody, TenderStatus } from '../../../tenders';
import { Cursor, PageRules, Timestamp } from '../../../platform/validation/rules';
import { parseTimestamp } from '../../../platform/validation/timestamp';
import { parseBody, problemsOf, repeatedKeys } from '../../../platform/validation/validate';

/** REST sort names → GraphQL `TenderSortField` values. */
export const SORT_FIELDS: Record<string, string> = {
  created_at: 'CREATED_AT',
  updated_at: 'UPDATED_AT',
  status: 'STATUS',
  product: 'PRODUCT',
};
const LIST_PARAMETERS = ['skip', 'limit', 'after', 'sort', 'status', 'line_of_business', 'updated_since'];

interface TenderListVariables {
  status: string[];
  lineOfBusinessId?: string;
  updatedSince?: string;
  sort?: { field: string; direction: 'ASC' | 'DESC' }[];
  skip?: number;
  limit?: number;
  after?: string;
}

interface ParsedListQuery {
  variables: TenderListVariables;
  /** The envelope's `metadata.sort`: `{"updated_at": -1, "created_at": 1}`, `{}` without `sort`. */
  sortEcho: Record<string, 1 | -1>;
}

/** A REST list's query parameters by name; an unknown or repeated one is a problem, not ignored. */
export function queryValues(req: Request, allowed: readonly string[], problems: FieldProblem[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    if (!allowed.includes(name)) problems.push({ parameter: name, message: `unknown parameter; allowed: ${allowed.join(', ')}` });
    else if (typeof value !== 'string') problems.push({ parameter: name, message: 'must be given once' });
    else values[name] = value;
  }
  return values;
}

/** Refuses what it does not understand: unknown or repeated parameters and every malformed value. */
export function parseListQuery(req: Request, pathStatuses: readonly TenderStatus[]): ParsedListQuery {
  const problems: FieldProblem[] = [];
  const values = queryValues(req, LIST_PARAMETERS, problems);
  const variables: TenderListVariables = { status: [...pathStatuses] };
  const sortEcho: Record<string, 1 | -1> = {};

  Object.assign(variables, pageOf(values, problems));

  if (values.sort !== undefined) {
    const sort: NonNullable<TenderListVariables['sort']> = [];
    const names = values.sort.split(',').map((key) => (key.startsWith('-') ? key.slice(1) : key));
    const repeated = repeatedKeys(names);
    for (const [at, key] of values.sort.split(',').entries()) {
      const name = names[at];
      if (!Object.hasOwn(SORT_FIELDS, name)) {
        problems.push({ parameter: 'sort', message: `unknown sort field "${name}"; allowed: ${Object.keys(SORT_FIELDS).join(', ')}` });
      } else if (repeated.has(at)) {
        problems.push({ parameter: 'sort', message: `"${name}" is given twice` });
      } else {
        sortEcho[name] = key.startsWith('-') ? -1 : 1;
        sort.push({ field: SORT_FIELDS[name], direction: key.startsWith('-') ? 'DESC' : 'ASC' });
      }
    }
    variables.sort = sort;
  }

  if (values.status !== undefined) {
    const statuses = values.status.split(',');
    const outside = statuses.filter((status) => !pathStatuses.includes(status as TenderStatus));
    if (outside.length > 0) {
      problems.push({
        parameter: 'status',
        message: `must be a comma list of ${pathStatuses.join(', ')}; not allowed here: ${outside.join(', ')}`,
      });
    } else {
      variables.status = [...new Set(statuses)];
    }
  }

  if (values.line_of_business !== undefined) {
    const refused = problemsOf(LineOfBusinessId, values.line_of_business, 'parameter', 'line_of_business');
    if (refused.length > 0) problems.push(...refused);
    else variables.lineOfBusinessId = values.line_of_business;
  }

  if (values.after !== undefined) {
    const refused = problemsOf(Cursor, values.after, 'parameter', 'after');
    if (refused.length > 0) problems.push(...refused);
    else variables.after = values.after;
  }

  if (values.updated_since !== undefined) {
    const since = parseTimestamp(values.updated_since);
    if (!since) problems.push({ parameter: 'updated_since', message: `must be ${Timestamp.description}` });
    else variables.updatedSince = since.toISOString();
  }

  if (problems.length > 0) throw badInput('The query parameters are invalid', problems);
  return { variables, sortEcho };
}

/** `skip` and `limit` of any REST list, checked by the page rules; absent ones are left out. */
export function pageOf(values: Record<string, string>, problems: FieldProblem[]): { skip?: number; limit?: number } {
  const page: { skip?: number; limit?: number } = {};
  for (const name of ['skip', 'limit'] as const) {
    if (values[name] === undefined) continue;
    const value = /^\d+$/.test(values[name]) ? Number(values[name]) : values[name];
    const refused = problemsOf(PageRules.properties[name], value, 'parameter', name);
    if (refused.length > 0) problems.push(...refused);
    else page[name] = value as number;
  }
  return page;
}

/** `GET .../tenders/{id}` takes no parameters at all. */
export function assertNoQuery(req: Request): void {
  const names = Object.keys(req.query);
  if (names.length > 0)
    throw badInput(
      'This resource takes no query parameters',
      names.map((name) => ({ parameter: name, message: 'unknown parameter' })),
    );
}

/** Body of `POST /integration/v1/tenders/{id}/policy-documentation`: `{policy_number, confirmed_at?}`. */
export function parsePolicyDocumentation(body: unknown): { policyNumber: string; confirmedAt?: string; documentId?: string } {
  const parsed = parseBody(PolicyDocumentationBody, body, 'The policy documentation');
  return { policyNumber: parsed.policy_number, confirmedAt: parsed.confirmed_at, documentId: parsed.document_id };
}
