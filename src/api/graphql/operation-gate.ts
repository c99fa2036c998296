import { DomainError } from '../../platform/errors/domain-error';

interface Waiter {
  admit: () => void;
}

/** A client's expensive operations: whether one holds the client's turn, and those waiting for it, in order. */
interface ClientLine {
  busy: boolean;
  waiting: Waiter[];
}

/**
 * Bounds how many expensive operations run at once in this process, so that their combined memory stays within
 * the heap whatever clients send. A client's expensive operations take turns: the next waits for the one before it
 * (at most `perClient` wait so, beyond that one is refused at once), then for a slot in the process's line; each
 * waits at most `maxWaitMs` in all, then is refused. So one client can hold at most one slot and never fill the line
 * with its own operations, while a client that polls a few things at once is served in turn instead of refused.
 */
export class OperationGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readonly clients = new Map<string, ClientLine>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaitMs: number,
    private readonly perClient: number,
  ) {}

  /** Resolves with the release function once the operation may run; rejects with SERVICE_UNAVAILABLE. */
  async enter(client: string): Promise<() => void> {
    const deadline = Date.now() + this.maxWaitMs;
    let line = this.clients.get(client);
    if (!line) {
      line = { busy: false, waiting: [] };
      this.clients.set(client, line);
    }
    if (line.busy) {
      if (line.waiting.length >= this.perClient) {
        throw new DomainError(
          'SERVICE_UNAVAILABLE',
          `This client already has ${this.perClient + 1} expensive operations running or waiting; send the next one after one of them ends`,
        );
      }
      if (!(await this.wait(line.waiting, deadline))) {
        throw new DomainError('SERVICE_UNAVAILABLE', 'An expensive operation of this client is still running; retry after it ends');
      }
      // Admitted: the turn was handed over by the operation before, still busy.
    } else line.busy = true;
    if (this.running < this.concurrency) this.running++;
    else if (!(await this.wait(this.waiting, deadline))) {
      this.passTurn(client, line);
      throw new DomainError('SERVICE_UNAVAILABLE', 'The gateway is busy with expensive operations; retry shortly');
    }
    return this.releaser(client, line);
  }

  /** Waits in `queue` until admitted (true) or until `deadline` (false, and out of the queue). */
  private wait(queue: Waiter[], deadline: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter = { admit: () => resolve(true) };
      queue.push(waiter);
      setTimeout(
        () => {
          const at = queue.indexOf(waiter);
          if (at === -1) return;
          queue.splice(at, 1);
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      ).unref();
    });
  }

  /** The client's next operation gets its turn; without one, the client's line is gone. */
  private passTurn(client: string, line: ClientLine): void {
    const next = line.waiting.shift();
    if (next) next.admit();
    else {
      line.busy = false;
      this.clients.delete(client);
    }
  }

  private releaser(client: string, line: ClientLine): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next in line; otherwise it comes free.
      const next = this.waiting.shift();
      if (next) next.admit();
      else this.running--;
      this.passTurn(client, line);
    };
  }
}
