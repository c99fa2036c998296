import { JSONObjectScalar } from '../../platform/validation/json';
import { Field, Float, ID, InputType } from 'type-graphql';
import { LIMITS } from '../../platform/validation/rules';

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
}

@InputType('CreateTenderInput')
export class CreateTenderInput {
  @Field(() => String)
  product!: string;

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

  @Field(() => Float, { description: 'Between 0 and 1, e.g. 0.19.' })
  taxRate!: number;

  @Field(() => JSONObjectScalar, {
    nullable: true,
    description: `Product-specific risk information (at most ${LIMITS.freeJsonBytes / 1024} KiB).`,
  })
  riskInformation?: Record<string, unknown>;
}
