// `node --import ./resolved-modules.mjs`: registers resolved-modules-hooks.mjs.
import { register } from "node:module";

register("./resolved-modules-hooks.mjs", import.meta.url);
