import type { MikroORM } from '@mikro-orm/core';
import type { PeriodicTask } from '../platform/tasks/periodic-task';
import { MailMessage, MailStatus } from './mail-message.entity';
import { MailKind } from './mail-kind';
import { enqueueMail, messageIdOf } from './mail-outbox';
import type { DigestItem } from './mail-templates';
import { addressKey } from './preferences/mail-preferences';

const ZONE = 'Europe/Berlin';
/** How often the digest task looks whether a digest is due: its mails leave within this of the hour. */
const DIGEST_CHECK_MS = 5 * 60_000;

/** The wall clock in Berlin at an instant, as if it were UTC (year, month, day, hour, minute). */
function berlinWall(at: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: ZONE,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, Number(part.value)]),
  );
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The instant Berlin's clocks show `wall` (a UTC-coded wall time); the offset read twice across a change of it. */
function berlinInstant(wall: number): number {
  const first = wall - (berlinWall(wall) - wall);
  return wall - (berlinWall(first) - first);
}

/** The latest digest time (MAIL_DIGEST_HOUR in Berlin) at or before `now`. */
export function lastDigestTime(now: Date, hour: number): Date {
  const wall = berlinWall(now.getTime());
  const day = Math.floor(wall / 86_400_000) * 86_400_000;
  const today = berlinInstant(day + hour * 3_600_000);
  return new Date(today <= now.getTime() ? today : berlinInstant(day - 86_400_000 + hour * 3_600_000));
}

/**
 * Once a day at MAIL_DIGEST_HOUR (Europe/Berlin, on the app's clock), each recipient's HELD mails recorded before that
 * time become one digest mail, sent by the mail worker like any other. Safe on every instance: the digest's key is the
 * address and the digest time, so two instances record one digest (a unique Message-ID); only the instance whose
 * digest was recorded marks the mails it lists DIGESTED, and mails another run left HELD go into the next digest.
 */
export async function collectDigests(orm: MikroORM, now: Date, hour: number): Promise<number> {
  const cutoff = lastDigestTime(now, hour);
  const held = await orm.em
    .fork()
    .find(
      MailMessage,
      { status: MailStatus.HELD, createdAt: { $lt: cutoff } },
      { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], limit: 5000 },
    );
  const byAddress = new Map<string, MailMessage[]>();
  for (const mail of held) {
    const address = addressKey(mail.recipientAddress);
    byAddress.set(address, [...(byAddress.get(address) ?? []), mail]);
  }
  let recorded = 0;
  for (const [address, mails] of byAddress) {
    const last = mails[mails.length - 1];
    const key = `digest:${address}:${cutoff.toISOString()}`;
    const items: DigestItem[] = mails.map((mail) => ({ template: mail.template, data: mail.data }));
    const data = { items: JSON.stringify(items) };
    await orm.em.fork().transactional(async (tx) => {
      await enqueueMail(tx, {
        key,
        kind: MailKind.DIGEST,
        occurredAt: cutoff,
        data,
        recipients: [{ email: last.recipientAddress, name: last.recipientName, language: last.language }],
      });
      // Ours, or another instance's listing the same mails: then these are marked; a digest listing others leaves
      // them HELD for the next one.
      const digest = await tx.findOne(MailMessage, { messageId: messageIdOf(key, address) });
      if (digest?.data.items !== data.items) return;
      await tx.nativeUpdate(
        MailMessage,
        { id: { $in: mails.map((mail) => mail.id) }, status: MailStatus.HELD },
        { status: MailStatus.DIGESTED },
      );
      recorded += 1;
    });
  }
  return recorded;
}

/** The digest task of mail's module: every instance looks, one digest per recipient and day is recorded. */
export const mailDigestTask = (orm: MikroORM, hour: number): PeriodicTask => ({
  name: 'mail digest',
  everyMs: DIGEST_CHECK_MS,
  allInstances: true,
  atStart: true,
  run: (now) => collectDigests(orm, now, hour),
});
