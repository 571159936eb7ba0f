import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.shared.ts";

// The build leaves the tests out: they import the repository's test support, outside this package.
export default defineConfig(libraryBuild({ index: "src/index.ts" }, { tsconfig: "tsconfig.build.json" }));
