import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The root of the Kith checkout this code runs from (the directory holding `pnpm-workspace.yaml` and
 * `apps/server`), or null when it runs from an installed package. The `kith` command reads a relative data
 * directory from there, so that it finds the same database whatever the working directory.
 */
export function findProjectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string | null {
  let directory = from;
  for (;;) {
    if (existsSync(join(directory, "pnpm-workspace.yaml")) && existsSync(join(directory, "apps", "server", "package.json")))
      return directory;
    const parent = dirname(directory);
    if (parent === directory) return null;
    directory = parent;
  }
}
