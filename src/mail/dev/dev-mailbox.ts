import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { AddressObject } from 'mailparser';
import type { SMTPServer } from 'smtp-server';

/** How many mails the development mailbox keeps: the newest, in memory. */
export const KEPT = 100;

export interface CaughtMail {
  id: string;
  receivedAt: Date;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** The headers a reader checks: Message-ID, Content-Language, List-Unsubscribe, List-Unsubscribe-Post. */
  headers: { name: string; value: string }[];
}

const SHOWN_HEADERS = ['message-id', 'date', 'content-language', 'list-unsubscribe', 'list-unsubscribe-post'];

const addresses = (value: AddressObject | AddressObject[] | undefined): string =>
  (Array.isArray(value) ? value : value ? [value] : []).map((one) => one.text).join(', ');

/**
 * Development only (`npm start` without SMTP_URL): an SMTP server on a loopback port inside the gateway's process
 * that catches every mail the gateway sends and keeps the newest 100 in memory for `/dev/mail`; nothing leaves the
 * machine. The mail worker sends to it as to any server.
 */
export class DevMailbox {
  private readonly mails: CaughtMail[] = [];
  private server?: SMTPServer;
  url = '';

  async start(): Promise<this> {
    // Loaded only here: a gateway that sends real mail (or none) never loads the server and the parser.
    const [{ SMTPServer }, { simpleParser }] = await Promise.all([import('smtp-server'), import('mailparser')]);
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 200,
      size: 2 * 1024 * 1024,
      onData: (stream, _session, callback) => {
        simpleParser(stream).then(
          (mail) => {
            this.mails.unshift({
              id: randomUUID(),
              receivedAt: new Date(),
              from: addresses(mail.from),
              to: addresses(mail.to),
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              html: typeof mail.html === 'string' ? mail.html : null,
              // The raw lines: mailparser folds List-* headers into one structured `list` value.
              headers: mail.headerLines
                .filter((line) => SHOWN_HEADERS.includes(line.key))
                .map((line) => ({ name: line.key, value: line.line.slice(line.line.indexOf(':') + 1).trim() })),
            });
            this.mails.splice(KEPT);
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The mails caught, newest first. */
  list(): readonly CaughtMail[] {
    return this.mails;
  }

  find(id: string): CaughtMail | undefined {
    return this.mails.find((mail) => mail.id === id);
  }

  close(): Promise<void> {
    const { server } = this;
    return server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  }
}
