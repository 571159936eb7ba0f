// The workspace's packages as built (dist): the benchmarks measure what users run.

/** Imports `specifier` from its build, or says to build first and exits. */
export async function importBuilt(specifier) {
  try {
    return await import(specifier);
  } catch (error) {
    process.stderr.write(`Cannot load ${specifier} from its build (dist): run \`pnpm build\` first.\n${error}\n`);
    process.exit(1);
  }
}
