import module from "node:module";

// Node keeps the compiled form of the modules it loads in a cache on disk (its temporary directory, keyed by Node's
// version and each file's contents) and reads it back on the next start instead of compiling again: about a tenth of
// a server's start. It covers what is imported after this line, so the command is loaded below, not imported above.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; Node 22.0 has no such cache and starts without it.
module.enableCompileCache?.();
const { runCli } = await import("./cli.js");

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
