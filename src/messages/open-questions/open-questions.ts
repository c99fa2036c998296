import { Role } from '../../access';

/** What open questions are counted from: a thread's messages, oldest first. */
interface ThreadMessage {
  authorRole: Role | string;
  requestsInformation: boolean;
}

/**
 * The insurer's questions not yet answered: its messages asking for information after the last message of the
 * broker's side (the broker or an internal user). Any answer from that side answers them all.
 */
export function openQuestions(thread: readonly ThreadMessage[]): number {
  let open = 0;
  for (const message of thread) {
    if ((message.authorRole as Role) !== Role.INSURER) open = 0;
    else if (message.requestsInformation) open += 1;
  }
  return open;
}
