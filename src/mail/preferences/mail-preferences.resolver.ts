import { Arg, Ctx, Field, InputType, Mutation, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { Allowed, type RequestContext } from '../../access';
import { MailKind } from '../mail-kind';
import { MailDelivery } from './mail-preference.entity';
import { notificationPreferences, setNotificationPreferences } from './mail-preferences';

registerEnumType(MailKind, {
  name: 'MailKind',
  description: 'A kind of mail the gateway sends (docs/people.md, "E-mail"); DIGEST is the daily digest, not an event one chooses.',
});

@InputType('NotificationPreferencesInput')
class NotificationPreferencesInput {
  @Field(() => String, {
    description: 'The recipient: a person of your broker company, or a contact of your insurer (internal users: anyone).',
  })
  email!: string;

  @Field(() => [MailKind], { description: 'The kinds it receives; every kind left out is not mailed to it (and not recorded).' })
  events!: MailKind[];

  @Field(() => MailDelivery, { description: 'IMMEDIATE, or DAILY_DIGEST: one mail a day at MAIL_DIGEST_HOUR (Europe/Berlin).' })
  delivery!: MailDelivery;
}

@ObjectType('NotificationPreferences', { description: 'What one address is mailed, and how.' })
class NotificationPreferencesView {
  @Field(() => String)
  email!: string;

  @Field(() => [MailKind])
  events!: MailKind[];

  @Field(() => MailDelivery)
  delivery!: MailDelivery;
}

@Resolver()
export class MailPreferencesResolver {
  @Allowed('setNotificationPreferences')
  @Mutation(() => NotificationPreferencesView, { description: 'Which mails an address receives, at once or in a daily digest.' })
  setNotificationPreferences(
    @Arg('input', () => NotificationPreferencesInput) input: NotificationPreferencesInput,
    @Ctx() { em, viewer, clock }: RequestContext,
  ): Promise<NotificationPreferencesView> {
    return setNotificationPreferences(em, viewer, input, clock.now());
  }

  @Allowed('notificationPreferences')
  @Query(() => NotificationPreferencesView, { description: "An address's mail preferences (every kind at once when it set none)." })
  notificationPreferences(
    @Arg('email', () => String) email: string,
    @Ctx() { em, viewer }: RequestContext,
  ): Promise<NotificationPreferencesView> {
    return notificationPreferences(em, viewer, email);
  }
}
