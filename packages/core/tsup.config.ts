import { defineConfig } from "tsup";
import { coreBuild } from "../../tsup.shared.ts";

export default defineConfig(
  coreBuild(
    { index: "src/index.ts", "testing/index": "src/testing/index.ts", "compact-activity": "src/platform/federation/compact-activity.ts" },
    { external: ["vitest"] },
  ),
);
