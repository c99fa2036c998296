import { readFileSync } from 'node:fs';

/**
 * How `npm run start:prod` runs the gateway, read from package.json so that the benchmark and the tests of the
 * production start run exactly that: its environment settings (`NAME=value` before `node`), its node options and
 * its entry file.
 */
export function productionStart(): { env: Record<string, string>; nodeOptions: string[]; entry: string } {
  const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod'];
  const parts = script.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(parts[0] ?? '')) {
    const [name, ...value] = parts.shift()!.split('=');
    env[name] = value.join('=');
  }
  // `exec`: the shell npm runs the script in becomes node, so npm's signals reach the gateway itself.
  if (parts[0] === 'exec') parts.shift();
  const [command, ...args] = parts;
  const entry = args.pop();
  if (command !== 'node' || !entry || args.some((arg) => !arg.startsWith('--')))
    throw new Error(`start:prod should be [NAME=value ...] [exec] node [--option ...] <entry>, it is: ${script}`);
  return { env, nodeOptions: args, entry };
}
