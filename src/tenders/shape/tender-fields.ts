import type { TSchema } from '@sinclair/typebox';
import { Address, BrokerCompany, Customer, Person, PersonRules } from '../../parties';
import { LIMITS, nullable, requiredText } from '../../platform/validation/rules';
import { LineOfBusiness } from '../line-of-business.entity';
import { CustomerInputRules, TaxRate } from '../tender-rules';
import { TenderStatus } from '../tender-status';
import { kinds, type ValueKind } from './field-kinds';
import { PolicyDocumentationStatus, PolicyDocumentationView, PolicyPeriodView } from './policy-documentation.types';
import { RenewalTermsView, RenewalType } from './renewal.types';
import { Int } from 'type-graphql';

/**
 * The tender's shape, declared once. Each field names its GraphQL name (the key), its name in spec 2.1 (`spec`),
 * its type (`kind`, or the `shape` of an object), whether it may be null (`optional`), whether it is withheld (null)
 * from a viewer the tender's details are kept from for data privacy (`withheld`), whether the customer erasure
 * removes it (`personal`) and, for a field the creation input takes, its rule (`input`). The REST JSON (names and
 * order), the GraphQL Tender type, the OpenAPI schemas, the read model's columns, the redaction, the creation
 * input's columns (GraphQL field, rule, assignment), the exported values and the bench's reference server are all
 * derived from it; webhook payloads name the tender by its id and status only, so they need nothing from it.
 *
 * Adding a field: declare it here, add the entity property, the two engines' migrations and a test, and let the
 * tools write the rest (docs/architecture.md, "Adding a tender field").
 */

/** What the read model reads beside the shown columns: the facts the audience rule and derived fields decide on. */
interface TenderFacts {
  status: TenderStatus;
  awardedInsurerId: string | null;
  policyNumber: string | null;
  policyConfirmedAt: Date | null;
  policyDocumentId: string | null;
  policyPeriodStart: string | null;
  policyPeriodEnd: string | null;
  renewalType: RenewalType | null;
  noticePeriodMonths: number | null;
  noticeDeadline: Date | null;
}

/** A field of a nested object: its name in the specification and its type (a value, or an embedded object). */
export interface NestedField {
  readonly spec: string;
  readonly kind: ValueKind<unknown> | Shape<unknown>;
  readonly optional?: boolean;
}

/** An object the representation nests: its GraphQL type (also the OpenAPI component's name) and the fields shown. */
export interface Shape<V> {
  readonly name: string;
  readonly graphql: () => abstract new (...args: never[]) => V;
  readonly fields: Readonly<Record<string, NestedField>>;
}

interface FieldOptions {
  readonly spec: string;
  /**
   * Whether the customer erasure removes it: `erase` for what identifies the customer or a natural person, `keep`
   * for what the market needs (docs/privacy.md). Required, so that a new field is decided on.
   */
  readonly personal: 'erase' | 'keep';
  /**
   * The field's rule in the creation input, for a field the creation input takes. For a column, the creation
   * input's GraphQL field (`inputDescription` its description), its rule and its assignment (text trimmed) follow
   * from it; a relation's input type and look-up are written in `creation/`.
   */
  readonly input?: TSchema;
  readonly inputDescription?: string;
  readonly withheld?: boolean;
  readonly optional?: boolean;
  readonly description?: string;
  readonly example?: unknown;
}

/** A column of the tender table, under the entity property of the same name. */
interface ColumnField<V> extends FieldOptions {
  readonly source: 'column';
  readonly kind: ValueKind<V>;
}

/** A many-to-one relation of the tender, joined, showing the shape's fields. */
interface JoinedField<V> extends FieldOptions {
  readonly source: 'joined';
  readonly shape: Shape<V>;
}

/** Computed from the tender's facts. */
interface DerivedField<V> extends FieldOptions {
  readonly source: 'derived';
  readonly shape: Shape<V>;
  readonly value: (tender: TenderFacts) => V | null;
}

export type TenderField = ColumnField<unknown> | JoinedField<unknown> | DerivedField<unknown>;

const shape = <V>(name: string, graphql: () => abstract new (...args: never[]) => V, fields: Record<string, NestedField>): Shape<V> => ({
  name,
  graphql,
  fields,
});
const column = <V, const O extends FieldOptions>(kind: ValueKind<V>, options: O) => ({ source: 'column' as const, kind, ...options });
const joined = <V, const O extends FieldOptions>(of: Shape<V>, options: O) => ({ source: 'joined' as const, shape: of, ...options });
const derived = <V, const O extends FieldOptions>(of: Shape<V>, value: (tender: TenderFacts) => V | null, options: O) => ({
  source: 'derived' as const,
  shape: of,
  value,
  optional: true as const,
  ...options,
});

const ADDRESS = shape('Address', () => Address, {
  street: { spec: 'street', kind: kinds.text },
  houseNumber: { spec: 'house_number', kind: kinds.text },
  zip: { spec: 'zip', kind: kinds.text },
  city: { spec: 'city', kind: kinds.text },
  country: { spec: 'country', kind: kinds.countryCode },
});

const policyDocumentationStatus: ValueKind<PolicyDocumentationStatus> = {
  graphql: () => PolicyDocumentationStatus,
  schema: { enum: Object.values(PolicyDocumentationStatus) },
  read: (column) => column as PolicyDocumentationStatus,
};

function policyDocumentationOf(tender: TenderFacts): PolicyDocumentationView | null {
  if (tender.status !== TenderStatus.SUCCESSFUL) return null;
  return {
    status: tender.policyNumber ? PolicyDocumentationStatus.CONFIRMED : PolicyDocumentationStatus.PENDING,
    policyNumber: tender.policyNumber,
    confirmedAt: tender.policyConfirmedAt,
    documentId: tender.policyDocumentId,
    period: tender.policyPeriodStart && tender.policyPeriodEnd ? { start: tender.policyPeriodStart, end: tender.policyPeriodEnd } : null,
  };
}

const renewalType: ValueKind<RenewalType> = {
  graphql: () => RenewalType,
  schema: { enum: Object.values(RenewalType) },
  read: (column) => column as RenewalType,
};

const months: ValueKind<number> = {
  graphql: () => Int,
  schema: { type: 'integer', minimum: 1, maximum: 3 },
  read: Number,
};

function renewalOf(tender: TenderFacts): RenewalTermsView | null {
  if (tender.status !== TenderStatus.SUCCESSFUL || !tender.renewalType || !tender.noticePeriodMonths || !tender.noticeDeadline) return null;
  return { type: tender.renewalType, noticePeriodMonths: tender.noticePeriodMonths, noticeDeadline: tender.noticeDeadline };
}

/** Spec 2.1's fields first, in its order, which the REST JSON keeps; additions (`policy_documentation`) after them. */
const TENDER_FIELDS = {
  id: column(kinds.id, { spec: '_id', personal: 'keep' }),
  changesMetadata: column(kinds.statusTimestamps, {
    spec: 'changes_metadata',
    personal: 'keep',
    description: 'status_changed_to_<status> → ISO 8601 timestamp, one key per status the tender has entered.',
  }),
  createdAt: column(kinds.timestamp, { spec: 'created_at', personal: 'keep' }),
  updatedAt: column(kinds.timestamp, { spec: 'updated_at', personal: 'keep' }),
  product: column(kinds.text, { spec: 'product', personal: 'keep', input: requiredText(LIMITS.name), example: 'Cyber Protect' }),
  status: column(kinds.status, { spec: 'status', personal: 'keep' }),
  taxRate: column(kinds.decimal, {
    spec: 'tax_rate',
    personal: 'keep',
    input: TaxRate,
    inputDescription: 'Between 0 and 1, e.g. 0.19.',
    withheld: true,
    example: 0.19,
  }),
  lineOfBusiness: joined(
    shape('LineOfBusiness', () => LineOfBusiness, { id: { spec: '_id', kind: kinds.id }, name: { spec: 'name', kind: kinds.text } }),
    { spec: 'line_of_business', personal: 'keep' },
  ),
  customer: joined(
    shape('Customer', () => Customer, {
      id: { spec: '_id', kind: kinds.id },
      address: { spec: 'address', kind: ADDRESS },
      companyId: { spec: 'company_id', kind: kinds.id },
      name: { spec: 'name', kind: kinds.text },
    }),
    { spec: 'customer', personal: 'erase', input: CustomerInputRules, withheld: true },
  ),
  brokerCompany: joined(
    shape('BrokerCompany', () => BrokerCompany, {
      id: { spec: '_id', kind: kinds.id },
      address: { spec: 'address', kind: ADDRESS },
      companyId: { spec: 'company_id', kind: kinds.id },
      email: { spec: 'email', kind: kinds.text },
      name: { spec: 'name', kind: kinds.text },
    }),
    { spec: 'broker_company', personal: 'keep', withheld: true },
  ),
  personInCharge: joined(
    shape('Person', () => Person, {
      id: { spec: '_id', kind: kinds.id },
      accountId: { spec: 'account_id', kind: kinds.id },
      email: { spec: 'email', kind: kinds.text },
      firstName: { spec: 'first_name', kind: kinds.text },
      lastName: { spec: 'last_name', kind: kinds.text },
      salutation: { spec: 'salutation', kind: kinds.text },
    }),
    { spec: 'person_in_charge', personal: 'erase', input: nullable(PersonRules), withheld: true },
  ),
  policyDocumentation: derived(
    shape('PolicyDocumentation', () => PolicyDocumentationView, {
      status: { spec: 'status', kind: policyDocumentationStatus },
      policyNumber: { spec: 'policy_number', kind: kinds.text, optional: true },
      confirmedAt: { spec: 'confirmed_at', kind: kinds.timestamp, optional: true },
      documentId: { spec: 'document_id', kind: kinds.id, optional: true },
      period: {
        spec: 'period',
        kind: shape('PolicyPeriod', () => PolicyPeriodView, {
          start: { spec: 'start', kind: kinds.day },
          end: { spec: 'end', kind: kinds.day },
        }),
        optional: true,
      },
    }),
    policyDocumentationOf,
    { spec: 'policy_documentation', personal: 'keep', withheld: true, description: 'Only for SUCCESSFUL tenders.' },
  ),
  renewal: derived(
    shape('RenewalTerms', () => RenewalTermsView, {
      type: { spec: 'type', kind: renewalType },
      noticePeriodMonths: { spec: 'notice_period_months', kind: months },
      noticeDeadline: { spec: 'notice_deadline', kind: kinds.timestamp },
    }),
    renewalOf,
    {
      spec: 'renewal',
      personal: 'keep',
      withheld: true,
      description: 'Only for SUCCESSFUL tenders whose renewal terms are set (docs/renewals.md).',
    },
  ),
  renewalOf: column(kinds.id, {
    spec: 'renewal_of',
    personal: 'keep',
    optional: true,
    withheld: true,
    description: 'The tender this one renews (renewTender); null otherwise.',
  }),
  renewedBy: column(kinds.id, {
    spec: 'renewed_by',
    personal: 'keep',
    optional: true,
    withheld: true,
    description: 'The tender renewing this one; null until renewTender.',
  }),
  erasedAt: column(kinds.timestamp, {
    spec: 'erased_at',
    personal: 'keep',
    optional: true,
    withheld: true,
    description: "When the personal data of the tender's customer and persons was erased (their strings are then empty); null while held.",
  }),
} as const satisfies Record<string, TenderField>;

type Fields = typeof TENDER_FIELDS;
type Held<F> = F extends { kind: ValueKind<infer V> } ? V : F extends { shape: Shape<infer V> } ? V : never;
type NullWhen<F, Flag extends string> = F extends Record<Flag, true> ? null : never;

/** A tender as the read model holds it: every shown column and relation, and its facts. */
export type TenderRecord = TenderFacts & {
  -readonly [K in keyof Fields as Fields[K]['source'] extends 'derived' ? never : K]: Held<Fields[K]> | NullWhen<Fields[K], 'optional'>;
};

/** A tender's fields as a viewer sees them: withheld fields may be null. */
export type ShownTender = {
  -readonly [K in keyof Fields]: Held<Fields[K]> | NullWhen<Fields[K], 'optional'> | NullWhen<Fields[K], 'withheld'>;
};

/** The declaration as a list, for the code that walks it. */
export const TENDER_FIELD_LIST: readonly (TenderField & { name: keyof Fields })[] = Object.entries(TENDER_FIELDS).map(([name, field]) => ({
  ...(field as TenderField),
  name: name as keyof Fields,
}));

/** A field's GraphQL name (also the entity property or relation it reads, for all but the derived ones). */
export type TenderFieldName = keyof Fields;

/** The columns the creation input takes (those with an `input` rule), as the input and the entity hold them. */
export type InputColumns = {
  -readonly [K in keyof Fields as Fields[K] extends { source: 'column'; input: TSchema } ? K : never]:
    Held<Fields[K]> | NullWhen<Fields[K], 'optional'>;
};
