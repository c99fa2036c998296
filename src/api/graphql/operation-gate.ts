import { DomainError } from '../../platform/errors/domain-error';

/**
 * Bounds how many expensive operations run at once in this process, so that their combined memory stays within
 * the heap whatever clients send. Excess waits in line for a while, then is refused; a client has at most one
 * expensive operation running or waiting, so one client cannot fill the line and starve the others.
 */
export class OperationGate {
  private running = 0;
  private readonly waiting: { client: string; admit: () => void }[] = [];
  private readonly clients = new Set<string>();

  constructor(
    private readonly concurrency: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Resolves with the release function once the operation may run; rejects with SERVICE_UNAVAILABLE. */
  async enter(client: string): Promise<() => void> {
    if (this.clients.has(client)) {
      throw new DomainError('SERVICE_UNAVAILABLE', 'An expensive operation of this client is still running; send the next one after it');
    }
    this.clients.add(client);
    if (this.running < this.concurrency) {
      this.running++;
      return this.releaser(client);
    }
    const admitted = await new Promise<boolean>((resolve) => {
      const entry = { client, admit: () => resolve(true) };
      this.waiting.push(entry);
      setTimeout(() => {
        const at = this.waiting.indexOf(entry);
        if (at === -1) return;
        this.waiting.splice(at, 1);
        resolve(false);
      }, this.maxWaitMs).unref();
    });
    if (!admitted) {
      this.clients.delete(client);
      throw new DomainError('SERVICE_UNAVAILABLE', 'The gateway is busy with expensive operations; retry shortly');
    }
    return this.releaser(client);
  }

  private releaser(client: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.clients.delete(client);
      const next = this.waiting.shift();
      // The slot passes straight to the next in line; otherwise it comes free.
      if (next) next.admit();
      else this.running--;
    };
  }
}
