import type { EntityManager, UpsertOptions } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { scopeOf, type Viewer } from '../../access';
import { Insurer } from '../../insurers';
import { Person } from '../../parties';
import { newId } from '../../platform/db/ids';
import { badInput, notFound } from '../../platform/errors/domain-error';
import { Email } from '../../platform/validation/rules';
import { problemsOf } from '../../platform/validation/validate';
import { EVENT_KINDS, MailKind } from '../mail-kind';
import { MailDelivery, MailPreference } from './mail-preference.entity';

/** An address's row is replaced in place: its id stays. */
const KEEP_ID = {
  onConflictFields: ['email'],
  onConflictMergeFields: ['events', 'delivery', 'updatedAt'],
} satisfies UpsertOptions<MailPreference, 'events' | 'delivery' | 'updatedAt'> as UpsertOptions<MailPreference>;

/** An address as preferences keep it: trimmed, lower case (mail systems treat the whole address alike in practice). */
export const addressKey = (email: string): string => email.trim().toLowerCase();

export interface NotificationPreferences {
  email: string;
  events: MailKind[];
  delivery: MailDelivery;
}

const isEventKind = (kind: string): kind is MailKind => (EVENT_KINDS as readonly string[]).includes(kind);

/** An address's preferences; every kind at once when it set none. */
const shown = (email: string, row: MailPreference | null): NotificationPreferences => ({
  email,
  events: row ? EVENT_KINDS.filter((kind) => row.events.includes(kind)) : [...EVENT_KINDS],
  delivery: row?.delivery ?? MailDelivery.IMMEDIATE,
});

/**
 * Whether the viewer may set and read the address's preferences: internal users anyone's; a broker's client the
 * persons of its broker company; an insurer's client its own contacts. Anyone else's address is not found, as if no
 * one had it (a client learns no address it did not know to be its own).
 */
async function assertOwnAddress(em: EntityManager, viewer: Viewer, email: string): Promise<void> {
  const scope = scopeOf(viewer);
  if (scope.kind === 'all') return;
  const missing = () => notFound('No person of yours has this address');
  if (scope.kind === 'brokerCompany') {
    // Compared in lower case on both engines (SQLite has no ilike): a company's persons are few.
    const persons = await em.find(Person, { brokerCompany: scope.brokerCompanyId }, { fields: ['email'] });
    if (!persons.some((person) => addressKey(person.email) === email)) throw missing();
    return;
  }
  const insurer = await em.findOne(Insurer, { id: scope.insurerId }, { fields: ['contacts'] });
  if (!insurer?.contacts.some((contact) => addressKey(contact.email) === email)) throw missing();
}

function checkedAddress(email: string): string {
  const address = addressKey(email);
  const problems = problemsOf(Type.Object({ email: Email }), { email: address });
  if (problems.length > 0) throw badInput('The address is invalid', problems);
  return address;
}

/** Replaces what the address is mailed and how (docs/people.md, "Preferences"). */
export async function setNotificationPreferences(
  em: EntityManager,
  viewer: Viewer,
  input: { email: string; events: readonly string[]; delivery: MailDelivery },
  now: Date,
): Promise<NotificationPreferences> {
  const email = checkedAddress(input.email);
  const refused = input.events.flatMap((kind, index) =>
    isEventKind(kind) ? [] : [{ parameter: `events[${index}]`, message: 'the digest itself is no event one chooses' }],
  );
  if (refused.length > 0) throw badInput('The events are invalid', refused);
  await assertOwnAddress(em, viewer, email);
  const events = EVENT_KINDS.filter((kind) => input.events.includes(kind));
  await em.upsert(MailPreference, { id: newId(), email, events, delivery: input.delivery, updatedAt: now }, KEEP_ID);
  return { email, events, delivery: input.delivery };
}

export async function notificationPreferences(em: EntityManager, viewer: Viewer, email: string): Promise<NotificationPreferences> {
  const address = checkedAddress(email);
  await assertOwnAddress(em, viewer, address);
  return shown(address, await em.findOne(MailPreference, { email: address }));
}

/**
 * One kind off for the address (every kind, from a digest), whoever asks: what a one-click unsubscribe does (the
 * token proved the address).
 */
export async function unsubscribeFrom(em: EntityManager, email: string, kind: MailKind, now: Date): Promise<void> {
  const address = addressKey(email);
  await em.transactional(async (tx) => {
    const row = await tx.findOne(MailPreference, { email: address });
    // A digest carries every kind: its link unsubscribes from all of them.
    const events = kind === MailKind.DIGEST ? [] : (row ? row.events : [...EVENT_KINDS]).filter((each) => each !== String(kind));
    await tx.upsert(
      MailPreference,
      { id: newId(), email: address, events, delivery: row?.delivery ?? MailDelivery.IMMEDIATE, updatedAt: now },
      KEEP_ID,
    );
  });
}

/** What each recipient of a mail chose, by address key: absent means every kind at once. */
export async function preferencesOf(em: EntityManager, emails: readonly string[]): Promise<Map<string, MailPreference>> {
  if (emails.length === 0) return new Map();
  const rows = await em.find(MailPreference, { email: { $in: [...new Set(emails.map(addressKey))] } });
  return new Map(rows.map((row) => [row.email, row]));
}
