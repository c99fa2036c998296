import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { notFound } from '../../platform/errors/domain-error';
import type { DocumentStore, PendingBytes, References, StoredDocument } from './document-store';

/**
 * Documents in a folder (the embedded default, `DATA_DIR/documents`): content-addressed, each under its SHA-256
 * (`ab/abcdef…`); an upload is written to `tmp/` and renamed into place once complete and synced, so a crash never
 * leaves a half file under a document's name.
 */
export class FilesystemStore implements DocumentStore {
  private readonly tmp: string;

  constructor(private readonly dir: string) {
    this.tmp = join(dir, 'tmp');
  }

  private pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  async begin(document: StoredDocument): Promise<PendingBytes> {
    await mkdir(this.tmp, { recursive: true });
    const temporary = join(this.tmp, `${document.id}.${randomBytes(6).toString('hex')}.part`);
    const sink = createWriteStream(temporary, { flags: 'wx' });
    const final = this.pathOf(document.sha256);
    return {
      sink,
      commit: async () => {
        await finished(sink);
        const handle = await open(temporary, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await mkdir(join(final, '..'), { recursive: true });
        // The same bytes under the same name: another document's file is as good as this one.
        await rename(temporary, final);
      },
      abort: async () => {
        sink.destroy();
        await rm(temporary, { force: true });
      },
    };
  }

  async read(document: StoredDocument) {
    const path = this.pathOf(document.sha256);
    try {
      await stat(path);
    } catch {
      throw notFound(`The content of document ${document.id} is not in the store`);
    }
    return createReadStream(path);
  }

  async has(document: StoredDocument): Promise<boolean> {
    return (await stat(this.pathOf(document.sha256)).catch(() => undefined))?.isFile() ?? false;
  }

  presign(): Promise<string | null> {
    return Promise.resolve(null);
  }

  async remove(document: StoredDocument, stillUsed: boolean): Promise<void> {
    if (!stillUsed) await rm(this.pathOf(document.sha256), { force: true });
  }

  async sweep(before: Date, referenced: References): Promise<number> {
    let removed = await this.sweepUnreferenced(before, referenced);
    const names = await readdir(this.tmp).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtime < before) {
        await unlink(path).catch(() => undefined);
        removed += 1;
      }
    }
    return removed;
  }

  /**
   * Content files older than `before` that no document row names (a crash between the rename and the database's
   * commit). A file renamed over meanwhile (the same bytes uploaded again) has a new inode and is kept.
   */
  private async sweepUnreferenced(before: Date, referenced: References): Promise<number> {
    let removed = 0;
    const folders = (await readdir(this.dir).catch(() => [] as string[])).filter((name) => /^[0-9a-f]{2}$/.test(name));
    for (const folder of folders) {
      const old: { path: string; sha256: string; ino: number }[] = [];
      for (const name of await readdir(join(this.dir, folder)).catch(() => [] as string[])) {
        const path = join(this.dir, folder, name);
        const info = await stat(path).catch(() => undefined);
        if (info && /^[0-9a-f]{64}$/.test(name) && info.mtime < before) old.push({ path, sha256: name, ino: info.ino });
      }
      if (old.length === 0) continue;
      const used = await referenced.bySha256(old.map((file) => file.sha256));
      for (const file of old.filter((candidate) => !used.has(candidate.sha256))) {
        if ((await stat(file.path).catch(() => undefined))?.ino !== file.ino) continue;
        await unlink(file.path).catch(() => undefined);
        removed += 1;
      }
    }
    return removed;
  }
}
