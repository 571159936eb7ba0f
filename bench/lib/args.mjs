// The benchmarks' command-line options: `--name=value`, or `--name` alone for "true".

/** The options given after the script, by name (strings; a bare flag is "true"). */
export function benchArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv.map((arg) => {
      const [key, value] = arg.replace(/^--/, "").split("=");
      return [key, value ?? "true"];
    }),
  );
}
