import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  port: number;
  url: string;
  /** Every message the server accepted (answered 250 to), parsed. */
  accepted(): ParsedMail[];
  /** Every message whose data arrived, accepted or not (a sender cut off before the answer). */
  arrived(): ParsedMail[];
  /** The next message that arrives is never answered: its sender waits until it gives up or dies. */
  holdNext(): void;
  close(): Promise<void>;
}

/**
 * A real SMTP server in the test process (the `smtp-server` package) on 127.0.0.1, on the given port or a free one;
 * it parses each message with `mailparser`. A message counts as accepted only once the server answered it.
 */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const accepted: ParsedMail[] = [];
  const arrived: ParsedMail[] = [];
  let hold = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // A held connection must not keep the test waiting when the server closes.
    closeTimeout: 200,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          arrived.push(mail);
          if (hold) {
            // Never answered: the sender is cut off while it waits.
            hold = false;
            return;
          }
          accepted.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    accepted: () => [...accepted],
    arrived: () => [...arrived],
    holdNext: () => {
      hold = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A gateway's mail settings for tests: quick polls, `retries` retries 100 ms apart, a short lease and timeout. */
export function mailTestEnv(retries: number): Record<string, string> {
  return {
    MAIL_POLL_INTERVAL_MS: '20',
    MAIL_RETRY_SCHEDULE: Array<string>(retries).fill('100ms').join(','),
    MAIL_TIMEOUT_MS: '1000',
    MAIL_LEASE_MS: '4000',
    MAIL_FROM: 'Tender Exchange <gateway@tender-exchange.test>',
    PUBLIC_URL: 'https://gateway.example',
  };
}
