import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.shared.ts";

export default defineConfig([
  libraryBuild({ index: "src/index.ts" }),
  // The executable: no declarations, and the shebang that lets it run as `kith`.
  libraryBuild({ cli: "src/main.ts" }, { dts: false, clean: false, banner: { js: "#!/usr/bin/env node" } }),
]);
