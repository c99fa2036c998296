/** The face of mail: what the composition and the tests use to mail people without an integration. */
export { MailMessage, MailStatus } from './mail-message.entity';
export { MailKind } from './mail-kind';
export { MailSender } from './mail-sender';
export { collectDigests, lastDigestTime } from './mail-digest';
// preferences/: what an address is mailed, and how; unsubscribe/: the one-click link every mail carries
export { unsubscribeFrom } from './preferences/mail-preferences';
export { UNSUBSCRIBE_PATH, UnsubscribeTokens } from './unsubscribe/unsubscribe-token';
export { unsubscribePage } from './unsubscribe/unsubscribe-page';
// dev/: `npm start`'s mailbox in the process and its pages (/dev/mail)
export { DevMailbox, KEPT as DEV_MAILS_KEPT } from './dev/dev-mailbox';
export { devMailList, devMailPage } from './dev/dev-mail-pages';
// personal-data/: the mails' part of a customer's personal data (privacy erases and exports it)
export { mailPersonalData } from './personal-data/mail-personal-data';
// module.ts: what the composition (createApp) takes of mail: its entities, resolvers, listeners, outbox worker and digest
export { mailModule } from './module';
