import { runCli } from "./cli.js";

// The `kith` executable. `serve` keeps the process alive through its server; other commands end with their exit code.
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kith: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
