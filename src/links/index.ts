/**
 * The face of capability links: a token in a URL that opens one page of one tender (the customer's questionnaire,
 * an underwriter's quote page) without an API client (docs/people.md, "Pages for people").
 */
export { AccessLink, LinkKind } from './access-link.entity';
export { AccessLinks, LINK_PATHS } from './access-links';
export { LinkKeys } from './link-keys';
// link-personal-data.ts: the address a link was mailed to (privacy erases and exports it)
export { linkPersonalData } from './link-personal-data';
// module.ts: what the composition (the database) takes of the feature
export { linksModule } from './module';
