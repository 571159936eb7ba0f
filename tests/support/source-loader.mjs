// `node --import ./source-loader.mjs`: registers source-loader-hooks.mjs.
import { register } from "node:module";

register("./source-loader-hooks.mjs", import.meta.url);
