import { TENDER_FIELD_LIST, type NestedField, type Shape, type TenderField } from '../../../tenders';
import { nullable, ref } from './openapi-parts';

type Schema = Record<string, unknown>;

const objectOf = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required: Object.keys(properties),
  additionalProperties: false,
  properties,
});

/** A nested object's component, and the components of the objects it nests in turn. */
function addShape(shape: Shape<unknown>, into: Record<string, Schema>): void {
  if (into[shape.name]) return;
  const properties: Record<string, Schema> = {};
  for (const field of Object.values<NestedField>(shape.fields)) {
    let schema: Schema;
    if ('fields' in field.kind) {
      addShape(field.kind, into);
      schema = ref(field.kind.name);
    } else schema = { ...field.kind.schema };
    properties[field.spec] = field.optional ? nullable(schema) : schema;
  }
  into[shape.name] = objectOf(properties);
}

function schemaOf(field: TenderField): Schema {
  const schema: Schema =
    field.source === 'column'
      ? { ...field.kind.schema, ...(field.example === undefined ? {} : { examples: [field.example] }) }
      : ref(field.shape.name);
  const shown = field.optional || field.withheld ? nullable(schema) : schema;
  return field.description ? { ...shown, description: field.description } : shown;
}

/**
 * The OpenAPI schemas of the tender (spec 2.1) and the objects it nests, derived from the tender's declaration
 * (src/tenders/shape/tender-fields.ts) as the REST JSON is: the document and the answers cannot disagree.
 */
export function tenderSchemas(): Record<string, Schema> {
  const schemas: Record<string, Schema> = {};
  for (const field of TENDER_FIELD_LIST) if (field.source !== 'column') addShape(field.shape, schemas);
  const kept = TENDER_FIELD_LIST.filter((field) => !field.withheld).map((field) => field.spec);
  schemas.Tender = objectOf(
    Object.fromEntries(TENDER_FIELD_LIST.map((field) => [field.spec, schemaOf(field)])),
    `Spec 2.1. For an insurer, a CLOSED tender and a SUCCESSFUL one another insurer won keep only ${kept.join(', ')}; the other fields are null.`,
  );
  return schemas;
}
