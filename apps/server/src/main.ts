import { setFlagsFromString } from "node:v8";

// Start-up allocates mostly objects that live as long as the process (modules, the route table, services). V8 grows
// its young generation on such survival rates, to 16 MB semi-spaces, and keeps them once the server is idle: about
// 13 MB of memory. The young generation stays at its smallest while the server starts, and grows from there by V8's
// default factor (2) once it runs, under load as before.
setFlagsFromString("--semi-space-growth-factor=1");
const { runCli } = await import("./cli.js");

// The `kith` executable. `serve` keeps the process alive through its server; other commands end with their exit code.
runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => {
    setFlagsFromString("--semi-space-growth-factor=2");
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kith: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
