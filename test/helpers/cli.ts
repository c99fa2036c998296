import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { runCli } from '../../src/cli/program';

/** What a run of the operator CLI ended with. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const run = promisify(execFile);

/**
 * `npm run cli -- ...args` with `env` over the test process's environment, run in the test process: the same program
 * (src/cli/program.ts) main.ts runs, with its output collected and its exit code answered. A spawned tsx process
 * costs about two seconds of CPU each; `spawnCli` keeps the few end-to-end runs.
 */
export async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(args, {
    env: { ...process.env, ...env },
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
  });
  return { code, stdout, stderr };
}

/** `npm run cli -- ...args` as its own process, as an operator runs it: its real exit code and streams. */
export async function spawnCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(join('node_modules', '.bin', 'tsx'), ['src/cli/main.ts', ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
