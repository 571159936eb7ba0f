import { defineConfig } from "tsup";
import { coreBuild } from "../../tsup.shared.ts";

// The server validates its environment with Zod: inlined as core's build inlines it, it loads as one file, not 95.
export default defineConfig([
  coreBuild({ index: "src/index.ts" }),
  // The executable: no declarations, and the shebang that lets it run as `kith`.
  coreBuild({ cli: "src/main.ts" }, { dts: false, clean: false, banner: { js: "#!/usr/bin/env node" } }),
]);
