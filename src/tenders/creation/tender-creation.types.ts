import { JSONObjectScalar } from '../../platform/validation/json';
import { Field, ID, InputType } from 'type-graphql';
import { LIMITS } from '../../platform/validation/rules';
import { TENDER_FIELD_LIST, type InputColumns } from '../shape/tender-fields';

@InputType('AddressInput', {
  description: 'Every part may be empty; country is an officially assigned ISO 3166-1 alpha-2 code when given.',
})
class AddressInput {
  @Field(() => String, { defaultValue: '' })
  street: string = '';

  @Field(() => String, { defaultValue: '' })
  houseNumber: string = '';

  @Field(() => String, { defaultValue: '' })
  zip: string = '';

  @Field(() => String, { defaultValue: '' })
  city: string = '';

  @Field(() => String, { defaultValue: '' })
  country: string = '';
}

@InputType('CustomerInput', { description: 'An existing customer by id, or a new one by companyId, name and address.' })
class CustomerInput {
  @Field(() => ID, { nullable: true })
  id?: string;

  @Field(() => String, { nullable: true })
  companyId?: string;

  @Field(() => String, { nullable: true })
  name?: string;

  @Field(() => AddressInput, { nullable: true })
  address?: AddressInput;
}

@InputType('PersonInput', { description: 'A user of the broker company, found by accountId or created.' })
export class PersonInput {
  @Field(() => String)
  accountId!: string;

  @Field(() => String)
  email!: string;

  @Field(() => String)
  firstName!: string;

  @Field(() => String)
  lastName!: string;

  @Field(() => String, { defaultValue: '' })
  salutation: string = '';

  @Field(() => String, {
    nullable: true,
    description: 'de or en: the language the gateway mails the person in (kept when not given; German when never given).',
  })
  language?: 'de' | 'en' | null;
}

// The class is the GraphQL input type; the columns the tender's shape declares an `input` for are registered from
// it below, and their types come with them through the interface of the same name.
@InputType('CreateTenderInput')
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class CreateTenderInput {
  @Field(() => ID)
  lineOfBusinessId!: string;

  @Field(() => ID)
  brokerCompanyId!: string;

  @Field(() => CustomerInput)
  customer!: CustomerInput;

  @Field(() => PersonInput, { description: 'The user submitting the tender in the user interface.' })
  submitter!: PersonInput;

  @Field(() => PersonInput, { nullable: true, description: 'Defaults to the submitter.' })
  personInCharge?: PersonInput;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: `Product-specific risk information (at most ${LIMITS.freeJsonBytes / 1024} KiB).`,
  })
  riskInformation?: Record<string, unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface CreateTenderInput extends InputColumns {}

for (const field of TENDER_FIELD_LIST) {
  if (field.source !== 'column' || !field.input) continue;
  Field(field.kind.graphql, { nullable: Boolean(field.optional), description: field.inputDescription })(
    CreateTenderInput.prototype,
    field.name,
  );
}
