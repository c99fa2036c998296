import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/**
 * The one way the tests launch a browser, headless through playwright-core:
 * - Debian's chromium when `CHROMIUM_PATH` names one, or `/usr/bin/chromium` is installed;
 * - else the Chromium that `@sparticuz/chromium` (a dev dependency) ships inside its package, so that the README's
 *   `npm test` passes after `npm install` alone.
 *
 * @sparticuz/chromium unpacks into the temporary folder and reuses whatever `chromium` it finds there: a stale
 * `/tmp/chromium` of another version crashes at launch (SIGTRAP), and a half-written one (a run killed while
 * unpacking) too. Here it unpacks into a folder of its own named by the package's version, staged and renamed into
 * place whole, and the binary found there is used only if it says it is that version.
 */
const run = promisify(execFile);

const SPARTICUZ_ENTRY = require.resolve('@sparticuz/chromium');
const SPARTICUZ_VERSION = (
  JSON.parse(readFileSync(join(dirname(SPARTICUZ_ENTRY), '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;
/** Where this package version unpacks: read when it is needed, as os.tmpdir() is. */
const folder = () => join(tmpdir(), 'tender-exchange-chromium', SPARTICUZ_VERSION);

/** Debian's chromium, when named or installed; a CHROMIUM_PATH that names nothing is a mistake, not a fallback. */
function systemChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named) {
    if (!existsSync(named)) throw new Error(`CHROMIUM_PATH names no file: ${named}`);
    return named;
  }
  return existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

/** Whether `binary` runs and is the Chromium this package version ships (its major version is the package's). */
async function isPackagedChromium(binary: string): Promise<boolean> {
  if (!existsSync(binary)) return false;
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 30_000 });
    return stdout.startsWith(`Chromium ${SPARTICUZ_VERSION.split('.')[0]}.`);
  } catch {
    return false;
  }
}

/** @sparticuz/chromium's binary, unpacked (once per version and machine) into a folder of its own. */
async function packagedChromium(): Promise<string> {
  const FOLDER = folder();
  const binary = join(FOLDER, 'chromium');
  if (await isPackagedChromium(binary)) return binary;
  rmSync(FOLDER, { recursive: true, force: true });
  mkdirSync(dirname(FOLDER), { recursive: true });
  // The package unpacks into os.tmpdir(): a process of its own with TMPDIR set to the staging folder.
  const staging = mkdtempSync(`${FOLDER}.partial-`);
  try {
    const script = `require(${JSON.stringify(SPARTICUZ_ENTRY)}).executablePath().then((path) => process.stdout.write(path))`;
    const { stdout } = await run(process.execPath, ['-e', script], { env: { ...process.env, TMPDIR: staging }, timeout: 180_000 });
    if (stdout !== join(staging, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${stdout}, not into ${staging}`);
    try {
      renameSync(staging, FOLDER);
    } catch (error) {
      // Another test file unpacked it at the same time: theirs is as good.
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!(await isPackagedChromium(binary))) throw new Error(`The Chromium unpacked at ${binary} is not version ${SPARTICUZ_VERSION}`);
  return binary;
}

/** A headless Chromium (with `packaged`, @sparticuz/chromium's even where Debian's is installed); the caller closes it. */
export async function launchBrowser({ packaged = false }: { packaged?: boolean } = {}): Promise<Browser> {
  const system = packaged ? undefined : systemChromium();
  if (system) return chromium.launch({ executablePath: system, headless: true });
  // Its flags are for AWS Lambda; `--single-process` there lets a closed context take the whole browser with it.
  const args = sparticuz.args.filter((flag) => flag !== '--single-process');
  return chromium.launch({ executablePath: await packagedChromium(), args, headless: true });
}
