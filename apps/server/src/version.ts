import { readFileSync } from "node:fs";

/**
 * The version of this Kith, from the server package's package.json (one directory above both `src` and `dist`):
 * announced in the instance document and NodeInfo, and printed by `kith version`. Releases are listed in CHANGELOG.md.
 */
export const KITH_VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version;
