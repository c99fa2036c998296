import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './helpers/browser';

/**
 * The browser tests' Chromium comes with `npm install` (@sparticuz/chromium), and survives what an earlier run or
 * another tool left in the temporary folder: a `chromium` of another version where the package would reuse it, or a
 * broken one in the helper's own folder.
 */
let temporary: string;
const outer = process.env.TMPDIR;

/** A file named like a browser that is not this one: it says another version, and crashes as a stale binary does. */
function stale(path: string) {
  writeFileSync(path, '#!/bin/sh\necho "Chromium 120.0.6099.0"\nkill -TRAP $$\n');
  chmodSync(path, 0o755);
}

beforeAll(() => {
  temporary = mkdtempSync(join(tmpdir(), 'tender-exchange-browser-'));
  stale(join(temporary, 'chromium'));
  mkdirSync(join(temporary, 'tender-exchange-chromium', '143.0.4'), { recursive: true });
  stale(join(temporary, 'tender-exchange-chromium', '143.0.4', 'chromium'));
  process.env.TMPDIR = temporary;
});

afterAll(() => {
  if (outer === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outer;
  rmSync(temporary, { recursive: true, force: true });
});

describe('the browser the tests launch', () => {
  it("is @sparticuz/chromium's own version, whatever stale chromium the temporary folder holds, and renders a page", async () => {
    const browser = await launchBrowser({ packaged: true });
    try {
      expect(browser.version()).toMatch(/^143\./);
      const page = await browser.newPage();
      await page.setContent('<h1>Tender Exchange</h1>');
      expect(await page.textContent('h1')).toBe('Tender Exchange');
    } finally {
      await browser.close();
    }
  }, 240_000);
});
