import 'reflect-metadata';
import { runCli } from './program';

// The operator CLI (`npm run cli -- <command>`): the commands live in program.ts, which the tests run in process.
void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
