import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { JSONObjectScalar } from '../../platform/validation/json';
import { LIMITS } from '../../platform/validation/rules';
import { customerDataExport } from './customer-export';

@Resolver()
export class CustomerExportResolver {
  @Allowed('customerDataExport')
  @Query(() => JSONObjectScalar, {
    description:
      `Everything held about a customer as one JSON document (GDPR art. 15 and 20), ${LIMITS.exportTenders} tenders per part: ` +
      'pass `next_skip` as `skip` for the next part (docs/privacy.md).',
  })
  async customerDataExport(
    @Arg('customerId', () => ID) customerId: string,
    @Arg('skip', () => Int, { defaultValue: 0 }) skip: number,
    @Ctx() { em }: RequestContext,
  ): Promise<Record<string, unknown>> {
    return customerDataExport(em, customerId, Math.max(0, skip));
  }
}
