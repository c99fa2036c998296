import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { Allowed } from '../../access';
import { ErasureTrigger } from '../erasure-trigger';
import type { PrivacyContext } from '../privacy-context';
import { eraseCustomer, type ErasureOutcome } from './customer-erasure.service';
import { CustomerErasureView } from './customer-erasure.types';

export const presentErasure = ({ erasure, alreadyErased }: ErasureOutcome): CustomerErasureView => ({
  customerId: erasure.customerId,
  erasedAt: erasure.erasedAt,
  erasedBy: erasure.erasedBy,
  trigger: erasure.trigger,
  reason: erasure.reason,
  tenders: erasure.tenders,
  documents: erasure.documents,
  persons: erasure.persons,
  alreadyErased,
});

@Resolver()
export class CustomerErasureResolver {
  @Allowed('eraseCustomer')
  @Mutation(() => CustomerErasureView, {
    description:
      'Erases what identifies the customer and the persons of its tenders (GDPR art. 17); the tenders and their figures stay. ' +
      "Afterwards the customer's tenders take no new personal data. Idempotent in effect: erasing again removes whatever personal data they hold by then, is recorded, and answers alreadyErased true.",
  })
  async eraseCustomer(
    @Arg('customerId', () => ID) customerId: string,
    @Arg('reason', () => String, { description: 'Why (a reference such as a ticket number); kept, so it must not name the customer.' })
    reason: string,
    @Ctx() context: PrivacyContext,
  ): Promise<CustomerErasureView> {
    const outcome = await eraseCustomer(context.em, context.erasure, {
      customerId,
      reason,
      by: context.viewer.appId,
      trigger: ErasureTrigger.REQUEST,
    });
    // Without `endedBefore` there is always an outcome.
    return presentErasure(outcome!);
  }
}
